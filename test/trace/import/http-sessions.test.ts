import { describe, expect, it } from 'vitest';
import { httpExchangesToTrace } from '../../../src/trace/import/http-exchanges.js';
import { DiagnosticLog } from '../../../src/trace/reader.js';
import type { TraceLine } from '../../../src/trace/types.js';

/** One POST of a JSON-RPC message and its JSON answer, with the heads given. */
function post(
  id: number,
  method: string,
  request: Record<string, string> = {},
  response: Record<string, string> = {},
  url = 'http://127.0.0.1:3001/mcp',
) {
  return {
    method: 'POST',
    url,
    requestHeaders: { 'content-type': 'application/json', ...request },
    requestBody: JSON.stringify({ jsonrpc: '2.0', id, method }),
    status: 200,
    responseHeaders: { 'content-type': 'application/json', ...response },
    responseBody: JSON.stringify({ jsonrpc: '2.0', id, result: {} }),
  };
}

function lines(exchanges: Record<string, unknown>[]): TraceLine[] {
  return httpExchangesToTrace(exchanges, 'capture.json', new DiagnosticLog('lenient')).entries.map(
    (e) => e.line,
  );
}

/** Each message's method or id with the connection and stream it was filed under. */
function filed(all: TraceLine[]) {
  return all.flatMap((line) =>
    line.type === undefined && 'raw' in line
      ? [[(line.raw as { method?: string }).method ?? 'answer', line.conn, line.stream]]
      : [],
  );
}

describe('HTTP exchanges read back as MCP sessions', () => {
  it('files each exchange under the session its Mcp-Session-Id names, whatever the header’s case', () => {
    const all = lines([
      post(0, 'initialize', {}, { 'Mcp-Session-Id': 'S1' }),
      post(1, 'tools/list', { 'mcp-session-id': 'S1' }),
      post(0, 'initialize', {}, { 'mcp-session-id': 'S2' }),
      post(1, 'tools/list', { 'Mcp-Session-Id': 'S2' }),
    ]);
    expect(filed(all)).toEqual([
      ['initialize', '1', '1'],
      ['answer', '1', '1'],
      ['tools/list', 'S1', '2'],
      ['answer', 'S1', '2'],
      ['initialize', '3', '3'],
      ['answer', '3', '3'],
      ['tools/list', 'S2', '4'],
      ['answer', 'S2', '4'],
    ]);
    // The initialize went out before its session had an id: the session event names it, as a recording's does.
    const sessions = all.filter((line) => line.type === 'event' && line.name === 'session');
    expect(sessions.map((line) => [line.conn, (line as { sessionId?: string }).sessionId])).toEqual([
      ['1', 'S1'],
      ['3', 'S2'],
    ]);
  });

  it('files a legacy SSE POST under its sessionId, and the stream under the session its endpoint event names', () => {
    const stream = {
      method: 'GET',
      url: 'http://127.0.0.1:3001/sse',
      requestHeaders: {},
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
      responseBody:
        'event: endpoint\ndata: /message?sessionId=L1\n\nevent: message\ndata: {"jsonrpc":"2.0","id":0,"result":{}}\n\n',
    };
    const message = { ...post(0, 'initialize', {}, {}, 'http://127.0.0.1:3001/message?sessionId=L1') };
    const all = lines([stream, { ...message, status: 202, responseBody: '' }]);
    expect(filed(all)).toEqual([
      ['answer', 'L1', '1'],
      ['initialize', 'L1', '2'],
    ]);
  });

  it('keeps an exchange that names no session a connection of its own (2026-era stateless requests)', () => {
    const all = lines([post(1, 'tools/list'), post(2, 'tools/list')]);
    expect(filed(all).map(([, conn]) => conn)).toEqual(['1', '1', '2', '2']);
    expect(all.some((line) => line.type === 'event')).toBe(false);
  });
});
