export type { HttpServeEvent, SessionKind } from './events.js';
export type { ContextStore, HttpRequestLike, HttpResponseLike } from './http-types.js';
export {
  HTTP_REPLAY_DEFAULTS,
  type HttpFlavour,
  type HttpReplayOptions,
  listenUrl,
  parseListenAddress,
  servedPath,
} from './options.js';
export { type HttpReplayServer, type HttpServeOutcome, serveHttp } from './server.js';
