import type { Json } from '../../../trace/types.js';
import type { ServeEvent } from '../stdio.js';

/**
 * What the HTTP front door reports besides what the engine does (hits, misses, answers …): sessions coming and
 * going, requests turned away, messages no live stream could carry.
 */
export type HttpServeEvent =
  | ServeEvent
  | { kind: 'session'; action: 'open' | 'close'; session: string; flavour: SessionKind }
  /** An HTTP request answered with an error status before anything reached the engine. */
  | { kind: 'rejected'; status: number; method: string; path: string; reason: string }
  /** A request that is not MCP (OAuth metadata …) answered with the recorded status, or 404 for `/.well-known/`. */
  | { kind: 'http-answer'; method: string; path: string; status: number; recorded: boolean }
  /** A server message with nowhere to go (no request stream, no GET stream, the client gone). */
  | { kind: 'dropped'; reason: string; message: Json };

/**
 * `streamable`: an `initialize` session with an `Mcp-Session-Id`. `stateless`: 2026-07-28-era requests, which carry
 * everything they need and belong to no session. `sse`: a legacy HTTP+SSE session.
 */
export type SessionKind = 'streamable' | 'stateless' | 'sse';
