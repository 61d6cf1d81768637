/**
 * Hand-built sessions for the diff tests: a list of calls becomes trace lines (meta, request, response), with ids,
 * progress tokens and timestamps that differ from session to session as they would in real recordings.
 */
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import type { Json, MetaLine, TraceLine } from '../../src/trace/types.js';

export interface Call {
  method: string;
  params?: JsonObject;
  /** The answer: a result, an error, or nothing at all (`unanswered`). */
  result?: Json;
  error?: { code: number; message: string };
  unanswered?: boolean;
  latencyMs?: number;
  server?: string;
}

/** `tools/call name {arguments}` answered with one text block. */
export function tool(name: string, args: JsonObject, text: string, latencyMs = 10): Call {
  return {
    method: 'tools/call',
    params: { name, arguments: args },
    result: { content: [{ type: 'text', text }] },
    latencyMs,
  };
}

export function list(tools: string[]): Call {
  return { method: 'tools/list', result: { tools: tools.map((name) => ({ name, inputSchema: {} })) } };
}

/**
 * Trace lines for `calls`, in order, each answered before the next is sent. `idBase` shifts the JSON-RPC ids (and
 * progress tokens), as a different client run would.
 */
export function session(
  calls: Call[],
  options: { idBase?: number; meta?: Partial<MetaLine> } = {},
): TraceLine[] {
  const base = Date.parse('2026-03-01T10:00:00.000Z');
  const at = (ms: number) => new Date(base + ms).toISOString();
  const lines: TraceLine[] = [
    { v: 1, type: 'meta', startedAt: at(0), label: 'session', transport: 'stdio', ...options.meta },
  ];
  let seq = 0;
  let clock = 0;
  calls.forEach((call, i) => {
    const id = (options.idBase ?? 0) + i + 1;
    const params = { ...call.params, _meta: { progressToken: `tok-${id}` } };
    const server = call.server === undefined ? {} : { server: call.server };
    clock += 100;
    lines.push({
      t: at(clock),
      seq: ++seq,
      dir: 'in',
      raw: { jsonrpc: '2.0', id, method: call.method, params },
      ...server,
    });
    if (call.unanswered) return;
    clock += call.latencyMs ?? 10;
    const answer = call.error ? { error: call.error } : { result: call.result ?? {} };
    lines.push({ t: at(clock), seq: ++seq, dir: 'out', raw: { jsonrpc: '2.0', id, ...answer }, ...server });
  });
  return lines;
}
