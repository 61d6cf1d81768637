import { describe, expect, it } from 'vitest';
import { MemorySink } from '../../src/sink/memory.js';
import { countFailures } from '../../src/trace/jsonrpc.js';
import { newMeta } from '../../src/trace/meta.js';
import type { Json } from '../../src/trace/types.js';

const T = '2026-01-01T00:00:00.000Z';

describe('the end line counts failed responses, so a listing of traces needs no full read', () => {
  it('counts JSON-RPC errors and in-band tool errors apart, batch items one by one', async () => {
    const sink = new MemorySink();
    sink.start(newMeta({ label: 'counts', transport: 'stdio' }));
    const send = (dir: 'in' | 'out', raw: Json) => sink.append({ t: T, dir, raw });
    send('in', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'a', error: 'not a response' },
    });
    send('out', { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad params' } });
    send('out', { jsonrpc: '2.0', id: 2, result: { content: [], isError: true } });
    send('out', { jsonrpc: '2.0', id: 3, result: { content: [] } });
    send('out', [
      { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'no such method' } },
      { jsonrpc: '2.0', id: 5, result: { isError: true } },
      { jsonrpc: '2.0', id: 6, result: {} },
    ]);
    // A client's answer to a server request can fail too; it is an error response all the same.
    send('in', { jsonrpc: '2.0', id: 0, error: { code: -1, message: 'user declined' } });
    await sink.close({ reason: 'process_exit', exitCode: 0 });
    expect(sink.lines.at(-1)).toMatchObject({
      type: 'end',
      counts: { in: 2, out: 4, errors: 3, toolErrors: 2 },
    });
  });

  it('countFailures ignores what is not a response', () => {
    expect(
      countFailures({ jsonrpc: '2.0', method: 'notifications/message', params: { error: 'x' } }),
    ).toEqual({
      errors: 0,
      toolErrors: 0,
    });
    expect(countFailures('not json-rpc')).toEqual({ errors: 0, toolErrors: 0 });
    expect(countFailures([[{ jsonrpc: '2.0', id: 1, error: {} }]])).toEqual({ errors: 0, toolErrors: 0 });
  });
});
