import { readFileSync } from 'node:fs';
import { computeStats, memoryTraceFiles, openTraceWith } from 'mcp-tapedeck/trace';
import { describe, expect, it } from 'vitest';
import { openModel } from '../open-model.js';
import { MCP_TAPE, MCPORTER } from '../traces.js';
import { SAMPLE } from './sample.js';

/** The viewer's Tools view shows the figures of `tapedeck stats`: the same numbers from the same trace. */
async function statsFromTraceModule(path: string, text: string) {
  const trace = await openTraceWith(memoryTraceFiles({ [path]: text }), path);
  return computeStats(
    (async function* () {
      yield trace.meta;
      for await (const { line } of trace.lines()) yield line;
    })(),
  );
}

describe('trace statistics in the viewer', () => {
  for (const [name, path, text] of [
    ['a trace with every kind of row', 'd0/calc.jsonl', SAMPLE],
    [
      'a recording of server-everything (mcp-tape)',
      'd0/everything-stdio.jsonl',
      readFileSync(MCP_TAPE, 'utf8'),
    ],
    ['an mcporter recording', 'd0/everything-get-sum.ndjson', readFileSync(MCPORTER, 'utf8')],
  ] as const) {
    it(`equal tapedeck stats for ${name}`, async () => {
      const model = await openModel({ [path]: text });
      const viewer = model.sources[0]!.statistics();
      expect(viewer).toEqual(await statsFromTraceModule(path, text));
      // Asked again without new lines: the figures are not computed twice.
      expect(model.sources[0]!.statistics()).toBe(viewer);
    });
  }

  it('count what the sample holds', async () => {
    const stats = (await openModel({ 'd0/calc.jsonl': SAMPLE })).sources[0]!.statistics();
    // name, calls, JSON-RPC errors, tool errors (isError results), never answered
    expect(stats.tools.map((t) => [t.name, t.calls, t.errors, t.toolErrors, t.unanswered])).toEqual([
      ['add', 1, 0, 0, 0],
      ['divide', 1, 1, 0, 0],
      ['fail', 1, 0, 1, 0],
      ['slow', 1, 0, 0, 1],
    ]);
    expect(stats.orphanResponses).toBe(1);
    expect(stats.lines).toEqual({ text: 1, stderr: 1, http: 1, events: 1 });
    expect(stats.ended).toBe(true);
    expect(stats.unanswered.map((u) => u.method).sort()).toEqual(['ping', 'tools/call']);
  });
});
