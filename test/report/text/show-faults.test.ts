/**
 * `show` marks the calls a recording's faults spoiled: the fault event's own row, and the answer row of the call
 * it names — or its "never answered" row — with what the client got instead.
 */
import { describe, expect, it } from 'vitest';
import { renderTimeline } from '../../../src/report/text/timeline.js';
import { pairTrace } from '../../../src/trace/pairing.js';
import type { TraceLine } from '../../../src/trace/types.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const call = (id: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { message } },
});
const echoed = (id: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: `Echo: ${message}` }] },
});

const TRACE: TraceLine[] = [
  { v: 1, type: 'meta', startedAt: at(0), label: 'faults', transport: 'stdio' },
  { t: at(1), seq: 1, dir: 'in', raw: call(1, 'one') },
  { t: at(2), seq: 2, dir: 'out', raw: echoed(1, 'one') },
  { t: at(3), seq: 3, dir: 'in', raw: call(2, 'two') },
  {
    t: at(3),
    seq: 4,
    type: 'event',
    name: 'fault',
    kind: 'error',
    fault: 'error=-32603@tools/call:echo#2',
    id: 2,
    method: 'tools/call',
    target: 'echo',
    nth: 2,
    code: -32603,
  },
  { t: at(5), seq: 5, dir: 'out', raw: echoed(2, 'two') },
  { t: at(6), seq: 6, dir: 'in', raw: call(3, 'three') },
  {
    t: at(6),
    seq: 7,
    type: 'event',
    name: 'fault',
    kind: 'drop',
    fault: 'drop#3',
    id: 3,
    method: 'tools/call',
  },
];

describe('show with faults', () => {
  it('marks the answer of the call a fault spoiled, and only that one', () => {
    const rows = renderTimeline(pairTrace(TRACE), { color: false, width: 160 }).split('\n');
    const row = (text: string) => rows.filter((line) => line.includes(text));
    expect(row('⚡ fault')).toEqual([
      expect.stringContaining(
        '⚡ fault error -32603 on tools/call echo (id 2) (error=-32603@tools/call:echo#2)',
      ),
      expect.stringContaining('⚡ fault drop on tools/call (id 3) (drop#3)'),
    ]);
    expect(row('← tools/call echo #2')).toEqual([
      expect.stringContaining('✓ 2ms ⚡ client got error -32603'),
    ]);
    expect(row('← tools/call echo #1')[0]).not.toContain('⚡');
    // The dropped call's server never answered in this trace either: its unanswered row says what was injected.
    expect(row('tools/call echo #3').at(-1)).toContain('never answered (⚡ client never got it)');
  });
});
