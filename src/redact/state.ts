import { StreamBlocks } from './blocks.js';
import { LineSeams } from './seams.js';

/** Past this many session ids a trace's memory of them starts over: bounded whatever a recording holds. */
const MAX_SESSIONS = 100_000;

/**
 * What redaction remembers across the lines of one trace: the open multi-line blocks of its line streams, the
 * partial lines a secret's rest may follow, and the
 * MCP session ids it has seen (in an `Mcp-Session-Id` header, a `session` event, a legacy `sessionId` parameter),
 * so a line's `conn` — which is that id — gets the same stable hash. One per trace, fed lines in order.
 *
 * @example const state = new TraceState(); for (const line of lines) out.push(redactLine(line, compiled, undefined, state));
 */
export class TraceState {
  readonly blocks = new StreamBlocks();
  /** Secrets whose parts landed on separate lines of a stream (a line recorded before it ended). */
  readonly seams = new LineSeams();
  private readonly sessions = new Set<string>();
  /**
   * Set by a meta line saying the trace was recorded over HTTP (`transport` http or sse): there every `conn` is the
   * MCP session id, or a recorder's own exchange id (`h1` …) until one is known.
   */
  connIsSession = false;

  /** Notes a session id seen in the trace. */
  learnSession(id: string): void {
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.clear();
    this.sessions.add(id);
  }

  /** True when `id` was seen as a session id earlier in the trace. */
  isSession(id: string): boolean {
    return this.sessions.has(id);
  }
}
