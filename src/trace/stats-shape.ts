import type { RpcId } from './jsonrpc.js';
import type { Direction } from './types.js';

/**
 * Session statistics, computed in one streaming pass (per-request latencies are kept for exact percentiles: 8 bytes
 * per answered request, nothing per line).
 *
 * The `--json` shape of `tapedeck stats` is {@link TraceStats}, version 1. Absent facts are `null`, never missing
 * keys; arrays are sorted (methods and notifications by server, direction, method; tools by server, name;
 * unanswered by position in the trace), so two runs over one trace print identical JSON:
 *
 * ```json
 * { "version": 1, "label": "everything", "startedAt": "…", "endedAt": "…", "durationMs": 14142,
 *   "ended": true, "endReason": null, "exitCode": 0,
 *   "servers": [{ "server": null, "name": "mcp-servers/everything", "title": "…", "version": "2.0.0",
 *                 "protocolVersion": "2025-11-25", "era": "initialize" }],
 *   "messages": { "in":  { "messages": 36, "bytes": 5120, "requests": 26, "responses": 4, "notifications": 1, "invalid": 0 },
 *                 "out": { … } },
 *   "lines": { "text": 0, "stderr": 0, "http": 0, "events": 0 },
 *   "methods": [{ "server": null, "dir": "in", "method": "tools/call", "calls": 18, "errors": 0, "toolErrors": 0,
 *                 "inputRequired": 0, "unanswered": 0, "cancelled": 0,
 *                 "latencyMs": { "count": 18, "p50": 2, "p95": 2005, "max": 2005 } }],
 *   "tools": [{ "server": null, "name": "echo", "calls": 1, "errors": 0, "toolErrors": 0, "inputRequired": 0,
 *               "unanswered": 0, "cancelled": 0, "latencyMs": { … } }],
 *   "notifications": [{ "server": null, "dir": "out", "method": "notifications/progress", "count": 4 }],
 *   "unanswered": [{ "server": null, "conn": null, "dir": "in", "id": "listen:0", "method": "subscriptions/listen",
 *                    "tool": null, "t": "…", "cancelled": true }],
 *   "orphanResponses": 0 }
 * ```
 *
 * `errors` counts JSON-RPC error responses; `toolErrors` counts results with `isError: true`; `unanswered` counts
 * requests with no response by the end of the trace, `cancelled` those of them a `notifications/cancelled` named.
 * Bytes are the UTF-8 length of `JSON.stringify(raw)` per message line.
 */
export interface TraceStats {
  version: 1;
  label: string | null;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  /** An `end` line was seen (a missing one means the recorder died or the trace is still being written). */
  ended: boolean;
  endReason: string | null;
  exitCode: number | null;
  servers: ServerStats[];
  messages: { in: DirectionStats; out: DirectionStats };
  lines: { text: number; stderr: number; http: number; events: number };
  methods: MethodStats[];
  tools: ToolStats[];
  notifications: NotificationStats[];
  unanswered: UnansweredStats[];
  orphanResponses: number;
}

export interface ServerStats {
  /** The trace's `server` field (multi-server traces), null for single-server traces. */
  server: string | null;
  name: string | null;
  title: string | null;
  version: string | null;
  protocolVersion: string | null;
  /** `initialize` handshake era, or the stateless 2026 era (`server/discover`, serverInfo in `_meta`). */
  era: 'initialize' | 'discover';
}

export interface DirectionStats {
  messages: number;
  bytes: number;
  requests: number;
  responses: number;
  notifications: number;
  invalid: number;
}

export interface LatencyStats {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

export interface CallStats {
  server: string | null;
  calls: number;
  errors: number;
  toolErrors: number;
  inputRequired: number;
  unanswered: number;
  cancelled: number;
  latencyMs: LatencyStats | null;
}

export interface MethodStats extends CallStats {
  dir: Direction;
  method: string;
}

export interface ToolStats extends CallStats {
  name: string;
}

export interface NotificationStats {
  server: string | null;
  dir: Direction;
  method: string;
  count: number;
}

export interface UnansweredStats {
  server: string | null;
  conn: string | null;
  dir: Direction;
  id: RpcId;
  method: string;
  tool: string | null;
  t: string | null;
  cancelled: boolean;
}
