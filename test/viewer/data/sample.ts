import { jsonl } from '../open-model.js';

/**
 * A small trace with one of every kind of row the viewer shows: a handshake, a stderr line, a list, a call with
 * progress, a failed call, a tool error, an answer to no request, an invalid message, HTTP facts, a recorder event,
 * a text line, a resource read, a batch, a call never answered, and the end line.
 */

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
export const at = (ms: number) => new Date(T0 + ms).toISOString();
export const START = T0;

const rpc = (seq: number, ms: number, dir: 'in' | 'out', raw: unknown) => ({ t: at(ms), seq, dir, raw });

export const SAMPLE_LINES: readonly object[] = [
  { v: 1, type: 'meta', startedAt: at(0), label: 'calc', kind: 'mcp', transport: 'stdio' },
  rpc(1, 1, 'in', {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  }),
  { t: at(2), seq: 2, type: 'stderr', text: 'calc listening on stdio' },
  rpc(3, 9, 'out', {
    jsonrpc: '2.0',
    id: 1,
    result: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      serverInfo: { name: 'calc', version: '2.1.0' },
    },
  }),
  rpc(4, 10, 'in', { jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  rpc(5, 12, 'out', {
    jsonrpc: '2.0',
    id: 2,
    result: { tools: [{ name: 'add' }, { name: 'divide' }, { name: 'fail' }] },
  }),
  rpc(6, 20, 'in', {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 40, b: 2 }, _meta: { progressToken: 7 } },
  }),
  rpc(7, 25, 'out', {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 7, progress: 1 },
  }),
  rpc(8, 31, 'out', { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'forty-two' }] } }),
  rpc(9, 40, 'in', {
    jsonrpc: '2.0',
    id: 4,
    method: 'tools/call',
    params: { name: 'divide', arguments: { a: 1, b: 0 } },
  }),
  rpc(10, 44, 'out', { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'division by zero' } }),
  rpc(11, 50, 'in', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'fail', arguments: {} } }),
  rpc(12, 53, 'out', {
    jsonrpc: '2.0',
    id: 5,
    result: { content: [{ type: 'text', text: 'boom' }], isError: true },
  }),
  rpc(13, 55, 'out', { jsonrpc: '2.0', id: 99, result: { ok: true } }),
  rpc(14, 56, 'in', { jsonrpc: '2.0' }),
  {
    t: at(57),
    seq: 15,
    type: 'http',
    conn: 'c1',
    dir: 'in',
    method: 'POST',
    url: '/mcp',
    headers: { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's-1' },
  },
  { t: at(58), seq: 16, type: 'event', name: 'dropped', count: 3 },
  { t: at(59), seq: 17, type: 'text', dir: 'out', text: 'calc: goodbye' },
  rpc(18, 60, 'in', { jsonrpc: '2.0', id: 6, method: 'resources/read', params: { uri: 'file:///a.txt' } }),
  rpc(19, 62, 'out', { jsonrpc: '2.0', id: 6, result: { contents: [{ uri: 'file:///a.txt', text: 'A' }] } }),
  rpc(20, 70, 'in', [
    { jsonrpc: '2.0', id: 8, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ]),
  rpc(21, 80, 'in', {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'slow', arguments: { n: 1 } },
  }),
  { t: at(90), type: 'end', durationMs: 90, exitCode: 0, reason: 'process_exit' },
];

export const SAMPLE = jsonl(SAMPLE_LINES);
