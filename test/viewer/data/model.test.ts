import { describe, expect, it } from 'vitest';
import { FollowState } from '../../../viewer/src/data/follow.js';
import { mergeByTime, TraceModel } from '../../../viewer/src/data/model.js';
import { linesText } from '../../../viewer/src/data/raw-text.js';
import type { Row } from '../../../viewer/src/data/rows.js';
import { jsonl, openModel } from '../open-model.js';
import { at, SAMPLE, SAMPLE_LINES } from './sample.js';

const META = SAMPLE_LINES[0] as { v: 1; type: 'meta'; startedAt: string; label: string };
const where = (lineNo: number) => ({ file: 'live', lineNo });

describe('a trace as the viewer holds it', () => {
  it('completes a request row already shown when its answer arrives later, and tracks facets as lines come', () => {
    const model = new TraceModel();
    const source = model.addSource({
      name: 'live.jsonl',
      format: 'live',
      meta: META,
      files: [linesText('live')],
    });
    source.push(
      {
        t: at(20),
        seq: 1,
        dir: 'in',
        raw: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add' } },
      },
      where(2),
    );
    const request = source.row('0.1')!;
    expect(request.exchange!.response).toBeUndefined();
    expect(request.exchange!.outcome).toBe('open');
    expect([...source.tools]).toEqual(['add']);
    expect(source.calls).toBe(1);
    expect(source.statistics().messages.in.requests).toBe(1);

    source.push(
      { t: at(27), seq: 2, dir: 'out', raw: { jsonrpc: '2.0', id: 3, result: { content: [] } } },
      where(3),
    );
    // The same row object: views holding it see the answer.
    expect(source.row('0.1')).toBe(request);
    expect(request.exchange!.latencyMs).toBe(7);
    expect(source.maxLatency).toBe(7);
    expect(source.rows).toHaveLength(2);
    expect(source.start).toBe(Date.parse(at(0)));

    source.push({ t: at(30), seq: 3, dir: 'in', raw: { jsonrpc: '2.0', id: 4, method: 'ping' } }, where(4));
    expect(source.exchanges[1]!.outcome).toBe('open');
    source.finish();
    expect(source.exchanges[1]!.outcome).toBe('unanswered');
    expect(source.statistics().unanswered.map((u) => u.method)).toEqual(['ping']);
    expect(source.ended).toBe(false);
    source.push({ t: at(31), type: 'end', durationMs: 31, reason: 'process_exit' }, where(5));
    expect(source.ended).toBe(true);
  });

  it('merges several traces by time, each row findable by its key, with one start and the servers of all', async () => {
    const other = jsonl([
      { v: 1, type: 'meta', startedAt: at(-5), label: 'b', kind: 'mcp', transport: 'stdio', server: 'beta' },
      { t: at(5), seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      { t: at(30), seq: 2, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: {} } },
      { t: at(31), seq: 3, dir: 'in', server: 'gamma', raw: { jsonrpc: '2.0', id: 2, method: 'ping' } },
    ]);
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE, 'd1/b.jsonl': other });
    expect(model.sources.map((s) => s.info.name)).toEqual(['calc.jsonl', 'b.jsonl']);
    const rows = model.rows();
    expect(rows).toHaveLength(model.sources[0]!.rows.length + 3);
    const times = rows.map((r) => r.time ?? 0);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(rows.slice(0, 4).map((r) => r.key)).toEqual(['0.1', '0.2', '1.1', '0.3']);
    expect(model.row('1.2')?.exchange?.latencyMs).toBe(25);
    expect(model.row('0.8')?.kind).toBe('response');
    expect(model.row('2.1')).toBeUndefined();
    expect(model.start()).toBe(Date.parse(at(-5)));
    expect(model.servers()).toEqual(['beta', 'gamma']);
    expect(model.maxLatency()).toBe(25);
    expect(model.row('1.3')?.exchange?.outcome).toBe('unanswered');
    // Asked again without a change: the same merged array.
    expect(model.rows()).toBe(rows);
  });

  it('merges row lists by time: rows without a time keep their neighbour’s, ties go to the first list', () => {
    const r = (key: string, time: number | undefined) => ({ key, time }) as Row;
    const merged = mergeByTime([
      [r('a1', 1), r('a2', undefined), r('a3', 5)],
      [r('b1', 1), r('b2', 3), r('b3', 9)],
    ]);
    expect(merged.map((x) => x.key)).toEqual(['a1', 'a2', 'b1', 'b2', 'a3', 'b3']);
    expect(mergeByTime([[], []])).toEqual([]);
  });

  it('tells its views when it changes, records failures as lines, and names the trace it follows', () => {
    const model = new TraceModel();
    let calls = 0;
    const unsubscribe = model.subscribe(() => calls++);
    model.changed();
    expect([model.version, calls]).toEqual([1, 1]);
    model.loading = { progress: 0.5, text: 'Reading…' };
    model.fail('Could not read the traces', new Error('calc.jsonl is empty'));
    expect(model.failures).toEqual(['Could not read the traces: calc.jsonl is empty']);
    expect(model.loading).toBeUndefined();
    expect(calls).toBe(2);
    unsubscribe();
    model.changed();
    expect(calls).toBe(2);

    expect(model.following()).toBeUndefined();
    model.addSource({ name: 'a', format: 'tapedeck', meta: META, files: [] });
    const followed = model.addSource({ name: 'b', format: 'live', meta: META, files: [] });
    followed.follow = new FollowState(10);
    expect(model.following()).toBe(followed.follow);
  });
});
