/**
 * `mcp-tapedeck/live`: what talks to a real server on replay's behalf. verifyCassette re-sends a cassette to a new
 * server build and compares the answers; serveUpdate serves what the cassette holds and forwards the rest, whose
 * traffic appendToCassette adds to it; the live peers (a command over stdio, a URL over HTTP) they talk through.
 * A command's server is started by the `spawn` given (node's `child_process.spawn`, as Spawn). The project file,
 * the run command's plan and the comparison are internal.
 */
export type { UpstreamTimeouts, UpstreamTransport } from '../upstream/types.js';
export { HttpLivePeer } from './http-peer.js';
export {
  type ChildLike,
  type HttpTarget,
  LIVE_DEFAULTS,
  type LiveAnswer,
  type LiveExit,
  type LiveOutcome,
  type LivePeer,
  type LivePeerHooks,
  type LiveTarget,
  type LiveTargetFields,
  type Spawn,
  type SpawnOptions,
  type StdioTarget,
} from './peer.js';
export { type AppendOptions, appendToCassette } from './run.js';
export { startLivePeer } from './start-peer.js';
export { LiveServer, type LiveServerOptions } from './stdio-peer.js';
export {
  serveUpdate,
  UPDATE_DEFAULTS,
  type UpdateEvent,
  type UpdateOptions,
  type UpdateOutcome,
  type UpdateSession,
} from './update.js';
export {
  type ExchangeVerdict,
  type SessionReport,
  VERIFY_DEFAULTS,
  type VerdictStatus,
  type VerifyOptions,
  type VerifyReport,
  verifyCassette,
} from './verify.js';
