export {
  type RecordingTransport,
  type RecordTransportOptions,
  recordTransport,
} from '../capture/record-transport.js';
export type { McpTransport, TransportMessage, TransportSendOptions } from '../capture/sdk-transport.js';
export { type AnswerComparison, answerComparer } from '../live/compare.js';
export { HttpLivePeer } from '../live/http-peer.js';
export {
  type ChildLike,
  describeTarget,
  type HttpTarget,
  LIVE_DEFAULTS,
  type LiveAnswer,
  type LiveExit,
  type LiveOutcome,
  type LivePeer,
  type LivePeerHooks,
  type LiveTarget,
  type LiveTargetFields,
  liveTargetOf,
  type Spawn,
  type SpawnOptions,
  type StdioTarget,
} from '../live/peer.js';
export {
  type AppendOptions,
  appendToCassette,
  EXPIRED_POLICIES,
  type ExpiredPolicy,
  planRun,
  RUN_DEFAULTS,
  RUN_MODES,
  type RunMode,
  type RunPlan,
} from '../live/run.js';
export { startLivePeer } from '../live/start-peer.js';
export { LiveServer, type LiveServerOptions } from '../live/stdio-peer.js';
export {
  serveUpdate,
  UPDATE_DEFAULTS,
  type UpdateOptions,
  type UpdateOutcome,
  type UpdateSession,
} from '../live/update.js';
export {
  type ExchangeVerdict,
  type SessionReport,
  VERIFY_DEFAULTS,
  type VerdictStatus,
  type VerifyOptions,
  type VerifyReport,
  verifyCassette,
} from '../live/verify.js';
export { DESCRIBE_MAX, describeRequest } from '../trace/describe.js';
export { buildCassette, type CassetteOptions, type KeyedExchange, keyQueues } from './cassette/cassette.js';
export {
  childPath,
  DIFF_DEFAULTS,
  type DiffEntry,
  type DiffOptions,
  diffSize,
  formatDiff,
  formatValue,
  type StructuralDiff,
  structuralDiff,
} from './cassette/diff.js';
export { type LoadCassetteOptions, type LoadedCassette, loadCassette } from './cassette/load.js';
export { Matcher, type MatchReport, type MatchResult, type UnusedExchange } from './cassette/matcher.js';
export { explainMiss, type Miss, type MissReason } from './cassette/miss.js';
export { isRetry, linkRounds, requestStateOf } from './cassette/mrtr.js';
export {
  canonicalJson,
  createNormalizer,
  DEFAULT_NORMALIZATION,
  type NormalizationRules,
  type NormalizedRequest,
  type Normalizer,
  type NormalizerOptions,
} from './cassette/normalize.js';
export { compileIgnorePath, type IgnorePath, type JsonLocation, removePaths } from './cassette/paths.js';
export {
  type CassetteRedactionOptions,
  cassetteRedaction,
  type RequestRedactor,
  redactionSummaryOf,
  requestRedactor,
} from './cassette/redacted.js';
export type {
  Anchor,
  Cassette,
  CassetteExchange,
  ClientNotification,
  MrtrRound,
  ServerMessage,
  UnsolicitedMessage,
} from './cassette/types.js';
export { linkedChannels, type ReplayChannel } from './engine/channel.js';
export { REPLAY_ERROR_CODES } from './engine/codes.js';
export { type AnswerCheck, ReplayEngine, type ReplayEvent, type ReplayReport } from './engine/engine.js';
export { type DiscoverAnswer, discoverAnswer, type Fallback, withFallbacks } from './engine/fallback.js';
export { errorResponse, type LiveIds, rewriteResponse, rewriteServerMessage } from './engine/rewrite.js';
export {
  type CustomMatcher,
  type EngineOptions,
  type MatchMode,
  type MatchOptions,
  parseTiming,
  REPLAY_DEFAULTS,
  type RepeatMode,
  type ReplayOptions,
  scaledDelay,
  type Timing,
  withDefaults,
} from './options.js';
export {
  type ReplayTransport,
  type ReplayTransportOptions,
  replayTransport,
} from './sdk/replay-transport.js';
export {
  CASSETTE_MODES,
  type CassetteMode,
  type CassetteSession,
  cassettePath,
  type UseCassetteOptions,
  useCassette,
} from './sdk/use-cassette.js';
export {
  HTTP_REPLAY_DEFAULTS,
  type HttpFlavour,
  type HttpReplayOptions,
  type HttpReplayServer,
  type HttpServeEvent,
  type HttpServeOutcome,
  listenUrl,
  parseListenAddress,
  type SessionKind,
  servedPath,
  serveHttp,
} from './serve/http/index.js';
export {
  SERVE_DEFAULTS,
  type ServeEvent,
  type ServeOutcome,
  type ServeStdioOptions,
  type StdioReplayServer,
  serveStdio,
} from './serve/stdio.js';
export {
  type SkippedLine,
  STDIO_CHANNEL_DEFAULTS,
  type StdioChannel,
  type StdioChannelOptions,
  stdioChannel,
} from './serve/stdio-channel.js';
