/**
 * `mcp-tapedeck/replay`: a recording stands in for its server. In-process through the official SDK's Transport
 * (replayTransport, useCassette; recordTransport makes the recording), or served to whatever connects over stdio
 * or HTTP; cassettes loaded or built from lines; the knobs and the report. What talks to a live server (verify,
 * update) is `mcp-tapedeck/live`; the engine, matcher, normalizer and channels behind these are internal.
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
export { buildCassette, type CassetteOptions, type CassetteSource } from './cassette/cassette.js';
export type { RecordedHttpAnswer } from './cassette/http-answers.js';
export { type LoadCassetteOptions, type LoadedCassette, loadCassette } from './cassette/load.js';
export type { MatchReport, MatchResult, UnusedExchange } from './cassette/matcher.js';
export type { Miss, MissReason } from './cassette/miss.js';
export { compileIgnorePath } from './cassette/paths.js';
export type { CassetteRedactionOptions, RequestRedactor } from './cassette/redacted.js';
export type {
  Anchor,
  Cassette,
  CassetteExchange,
  ClientNotification,
  MrtrRound,
  ServerMessage,
  UnsolicitedMessage,
} from './cassette/types.js';
export { REPLAY_ERROR_CODES } from './engine/codes.js';
export type { AnswerCheck, ReplayEvent, ReplayReport } from './engine/engine.js';
export type { DiscoverAnswer, Fallback } from './engine/fallback.js';
export type { VersionNote } from './engine/negotiation.js';
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
export type { HttpServeEvent, SessionKind } from './serve/http/events.js';
export { HTTP_REPLAY_DEFAULTS, type HttpFlavour, type HttpReplayOptions } from './serve/http/options.js';
export { type HttpReplayServer, type HttpServeOutcome, serveHttp } from './serve/http/server.js';
export {
  SERVE_DEFAULTS,
  type ServeEvent,
  type ServeOutcome,
  type ServeStdioOptions,
  type StdioReplayServer,
  serveStdio,
} from './serve/stdio.js';
export type {
  ByteReader,
  ByteWriter,
  SkippedLine,
  StdioChannelOptions,
} from './serve/stdio-channel.js';
