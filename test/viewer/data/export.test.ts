import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExportSource, exportHar, exportJsonl, exportName } from '../../../viewer/src/data/export.js';
import { compileFilter, filterRows } from '../../../viewer/src/data/filter.js';
import type { TraceModel } from '../../../viewer/src/data/model.js';
import { REPO_ROOT } from '../../helpers/peers.js';
import { openModel, text } from '../open-model.js';
import { MCP_TAPE } from '../traces.js';
import { SAMPLE } from './sample.js';

const HTTP = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http-auth.jsonl');

const sourcesOf = (model: TraceModel): ExportSource[] =>
  model.sources.map((s) => ({ index: s.index, name: s.info.name, meta: s.info.meta, rows: s.rows }));

const filtered = (model: TraceModel, tool: string) =>
  filterRows(model.rows(), compileFilter({ tool }), (src) => model.sources[src]!.info.name);

describe('exporting the filtered view', () => {
  it('as JSONL: a trace tapedeck reopens with just the rows shown, meta and end line kept', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    const rows = filtered(model, 'add');
    expect(rows.map((r) => r.kind)).toEqual(['request', 'notification', 'response']);
    const [file, ...more] = await exportJsonl(sourcesOf(model), rows);
    expect(more).toEqual([]);
    expect(file!.name).toBe('calc-filtered.jsonl');
    const lines = file!.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'meta', label: 'calc' });
    expect(lines.at(-1)).toEqual({
      t: expect.any(String),
      type: 'end',
      durationMs: 90,
      exitCode: 0,
      reason: 'process_exit',
    });
    const again = await openModel({ 'd0/calc-filtered.jsonl': file!.text });
    expect(again.failures).toEqual([]);
    expect(again.sources[0]!.diagnostics).toEqual([]);
    expect(again.rows().map((r) => r.kind)).toEqual(['request', 'notification', 'response', 'end']);
    expect(again.sources[0]!.exchanges[0]).toMatchObject({
      method: 'tools/call',
      latencyMs: 11,
      outcome: 'ok',
    });
  });

  it('as JSONL: a batch is written once however many of its items are shown', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    const batch = model.rows().filter((r) => r.key.startsWith('0.20.'));
    expect(batch).toHaveLength(2);
    const [file] = await exportJsonl(sourcesOf(model), batch);
    expect(file!.text.trimEnd().split('\n')).toHaveLength(3);
  });

  it('as JSONL: a file per open trace with rows in the view', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE, 'd1/everything.jsonl': text(MCP_TAPE) });
    const files = await exportJsonl(sourcesOf(model), model.rows());
    expect(files.map((f) => f.name).sort()).toEqual(['calc-filtered.jsonl', 'everything-filtered.jsonl']);
  });

  it('as HAR: the HTTP exchanges the shown rows travelled on, whole and redacted', async () => {
    const model = await openModel({ 'd0/everything-http-auth.jsonl': text(HTTP) });
    const { files, skipped } = await exportHar(
      sourcesOf(model),
      filtered(model, 'trigger-long-running-operation'),
    );
    expect(skipped).toEqual([]);
    expect(files.map((f) => f.name)).toEqual(['everything-http-auth-filtered.har']);
    const har = JSON.parse(files[0]!.text) as {
      log: {
        entries: {
          request: {
            method: string;
            headers: { name: string; value: string }[];
            postData?: { text: string };
          };
          response: { status: number; content: { text?: string } };
        }[];
      };
    };
    expect(har.log.entries).toHaveLength(1);
    const [entry] = har.log.entries;
    expect(entry!.request.method).toBe('POST');
    expect(entry!.request.postData!.text).toContain('trigger-long-running-operation');
    expect(entry!.response.status).toBe(200);
    // The body is the event stream: four progress events and the answer.
    expect(entry!.response.content.text!.match(/notifications\/progress/g)).toHaveLength(4);
    const auth = entry!.request.headers.find((h) => h.name === 'authorization');
    expect(auth?.value).toBe('[REDACTED:authorization-header]');
    // The whole session, unfiltered: every POST and the GET stream.
    const all = await exportHar(sourcesOf(model), model.rows());
    expect(JSON.parse(all.files[0]!.text).log.entries).toHaveLength(8);
  });

  it('as HAR: a stdio trace has no HTTP to write, and says so', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE, 'd1/everything.jsonl': text(MCP_TAPE) });
    const { files, skipped } = await exportHar(sourcesOf(model), model.rows());
    // The sample has one http line with no answer or messages: a HAR of it says what was sent.
    expect(files.map((f) => f.name)).toEqual(['calc-filtered.har']);
    expect(skipped).toEqual(['everything.jsonl']);
  });

  it('names files after the trace', () => {
    expect(exportName('calls.jsonl', 'filtered', 'har')).toBe('calls-filtered.har');
    expect(exportName('session.ndjson', 'filtered', 'jsonl')).toBe('session-filtered.jsonl');
    expect(exportName('.jsonl', 'x', 'jsonl')).toBe('trace-x.jsonl');
  });
});
