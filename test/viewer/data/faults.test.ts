import { describe, expect, it } from 'vitest';
import { faultMark, faultMarks } from '../../../viewer/src/data/faults.js';
import { jsonl, openModel } from '../open-model.js';
import { at } from './sample.js';

const call = (seq: number, ms: number, id: number, conn?: string) => ({
  t: at(ms),
  seq,
  dir: 'in',
  raw: {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: String(id) } },
  },
  ...(conn ? { conn } : {}),
});
const answer = (seq: number, ms: number, id: number, conn?: string) => ({
  t: at(ms),
  seq,
  dir: 'out',
  raw: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `Echo: ${id}` }] } },
  ...(conn ? { conn } : {}),
});
const fault = (seq: number, ms: number, fields: object) => ({
  t: at(ms),
  seq,
  type: 'event',
  name: 'fault',
  ...fields,
});

describe('the viewer’s fault marks', () => {
  it('marks the exchange a fault event names — by id, and by connection over HTTP — and no other', async () => {
    const model = await openModel({
      'd0/faults.jsonl': jsonl([
        { v: 1, type: 'meta', startedAt: at(0), label: 'faults', transport: 'http' },
        call(1, 1, 1, 'a'),
        answer(2, 2, 1, 'a'),
        call(3, 3, 1, 'b'),
        fault(4, 3, { kind: 'error', fault: 'error=-32603#2', id: 1, conn: 'b', code: -32603 }),
        answer(5, 4, 1, 'b'),
        call(6, 5, 2, 'b'),
        fault(7, 5, { kind: 'latency', fault: 'latency=250', id: 2, conn: 'b', delayMs: 250 }),
        fault(8, 5, { kind: 'duplicate', fault: 'duplicate@tools/call', id: 2, conn: 'b' }),
        answer(9, 260, 2, 'b'),
      ]),
    });
    const marks = faultMarks(model.rows());
    const exchanges = model
      .rows()
      .filter((row) => row.kind === 'request')
      .map((row) => row.exchange!);
    expect(exchanges.map((x) => marks.get(x))).toEqual([
      undefined,
      [{ label: 'error -32603', rule: 'error=-32603#2' }],
      [
        { label: 'held 250ms', rule: 'latency=250' },
        { label: 'sent twice', rule: 'duplicate@tools/call' },
      ],
    ]);
  });

  it('words each kind as what the client got', () => {
    const label = (fields: Record<string, unknown>) => faultMark({ name: 'fault', ...fields }).label;
    expect(label({ kind: 'tool-error' })).toBe('tool error');
    expect(label({ kind: 'drop' })).toBe('dropped');
    expect(label({ kind: 'disconnect' })).toBe('disconnected');
    expect(label({ kind: 'malformed' })).toBe('malformed');
    expect(label({ kind: 'slow-stream', bytesPerSecond: 200 })).toBe('200 B/s');
  });
});
