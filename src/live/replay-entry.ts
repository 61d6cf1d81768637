/**
 * `mcp-tapedeck/replay`: a recording stands in for its server. In-process through the official SDK's Transport
 * (replayTransport, useCassette; recordTransport makes the recording), or served to whatever connects over stdio
 * or HTTP; cassettes loaded or built from lines; the knobs and the report. What talks to a live server (verify,
 * update) is `mcp-tapedeck/live`; the engine, matcher, normalizer and channels behind these are internal.
 *
 * The entry sits in live/, not replay/: useCassette starts the real server when it records and reads the project
 * file, so it belongs to live, and replay never imports live (live imports replay).
 */
export {
  type RecordingTransport,
  type RecordTransportOptions,
  recordTransport,
} from '../capture/record-transport.js';
export type {
  McpTransport,
  TransportCallback,
  TransportMessage,
  TransportSendOptions,
} from '../capture/sdk-transport.js';
export { buildCassette, type CassetteOptions, type CassetteSource } from '../replay/cassette/cassette.js';
export type { RecordedHttpAnswer } from '../replay/cassette/http-answers.js';
export { type LoadCassetteOptions, type LoadedCassette, loadCassette } from '../replay/cassette/load.js';
export type { MatchReport, MatchResult, UnusedExchange } from '../replay/cassette/matcher.js';
export type { Miss, MissReason } from '../replay/cassette/miss.js';
export { compileIgnorePath } from '../replay/cassette/paths.js';
export type { CassetteRedactionOptions, RequestRedactor } from '../replay/cassette/redacted.js';
export type {
  Anchor,
  Cassette,
  CassetteExchange,
  ClientNotification,
  MrtrRound,
  ServerMessage,
  UnsolicitedMessage,
} from '../replay/cassette/types.js';
export { REPLAY_ERROR_CODES } from '../replay/engine/codes.js';
export type { AnswerCheck, ReplayEvent, ReplayReport } from '../replay/engine/engine.js';
export type { DiscoverAnswer, Fallback } from '../replay/engine/fallback.js';
export type { VersionNote } from '../replay/engine/negotiation.js';
export {
  type CustomMatcher,
  type EngineOptions,
  type MatchMode,
  type MatchOptions,
  REPLAY_DEFAULTS,
  type RepeatMode,
  type ReplayOptions,
  type SettingNames,
  type Timing,
} from '../replay/options.js';
export {
  type ReplayTransport,
  type ReplayTransportOptions,
  replayTransport,
} from '../replay/sdk/replay-transport.js';
export type { HttpServeEvent, SessionKind } from '../replay/serve/http/events.js';
export {
  HTTP_REPLAY_DEFAULTS,
  type HttpFlavour,
  type HttpReplayOptions,
} from '../replay/serve/http/options.js';
export { type HttpReplayServer, type HttpServeOutcome, serveHttp } from '../replay/serve/http/server.js';
export {
  SERVE_DEFAULTS,
  type ServeEvent,
  type ServeOutcome,
  type ServeStdioOptions,
  type StdioReplayServer,
  serveStdio,
} from '../replay/serve/stdio.js';
export type {
  ByteReader,
  ByteWriter,
  SkippedLine,
  StdioChannelOptions,
} from '../replay/serve/stdio-channel.js';
export {
  CASSETTE_MODES,
  type CassetteMode,
  type CassetteSession,
  cassettePath,
  type LlmSide,
  type UseCassetteOptions,
  useCassette,
} from './use-cassette.js';
