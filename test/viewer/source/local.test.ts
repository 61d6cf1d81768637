import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TraceModel } from '../../../viewer/src/data/model.js';
import { type LocalFile, localSource, readLocalFiles } from '../../../viewer/src/source/local.js';
import { jsonl } from '../open-model.js';
import { expectedRows, MCP_TAPE, MCPORTER } from '../traces.js';

const segment = (n: number, lines: object[]) =>
  jsonl([
    {
      v: 1,
      type: 'meta',
      startedAt: '2026-11-29T10:00:00.000Z',
      label: 'calc',
      kind: 'mcp',
      traceId: 'local-test',
      segment: n,
      transport: 'stdio',
    },
    ...lines,
  ]);

describe('files the user drops on the page or picks', () => {
  it('open in one folder, so rotated segments picked together stitch, and nothing is fetched', async () => {
    const first = segment(0, [
      { t: '2026-11-29T10:00:00.001Z', seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } },
    ]);
    const second = segment(1, [
      { t: '2026-11-29T10:00:00.004Z', seq: 2, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: {} } },
    ]);
    const source = localSource([new File([second], 'calc.jsonl'), new File([first], 'calc.1.jsonl')]);
    expect(source.kind).toBe('local');
    expect(source.capabilities).toEqual({
      own: true,
      list: false,
      follow: false,
      search: false,
      openFiles: true,
    });
    expect(await source.list()).toBeUndefined();
    const model = new TraceModel();
    const opened = source.open(model);
    expect(model.loading?.text).toBe('Reading…');
    await opened.ready;
    expect(model.sources).toHaveLength(1);
    expect(model.sources[0]!.info.files.map((f) => f.path)).toEqual([
      'local/calc.1.jsonl',
      'local/calc.jsonl',
    ]);
    expect(model.sources[0]!.exchanges[0]!.latencyMs).toBe(3);
    expect(model.loading).toBeUndefined();
  });

  it('are added beside the traces already open when a second trace is wanted for a diff', async () => {
    const model = new TraceModel();
    await localSource([new File([readFileSync(MCP_TAPE)], 'everything-stdio.jsonl')]).open(model).ready;
    const adding = localSource([new File([readFileSync(MCPORTER)], 'everything-get-sum.ndjson')], 'add').open(
      model,
    );
    expect(model.loading?.text).toBe('Adding…');
    await adding.ready;
    expect(model.sources.map((s) => s.info.format)).toEqual(['mcp-tape', 'mcporter']);
    expect(model.rows()).toHaveLength(
      expectedRows(readFileSync(MCP_TAPE, 'utf8')) + expectedRows(readFileSync(MCPORTER, 'utf8'), 'mcporter'),
    );
  });

  it('are taken from the list as it was when dropped, and a file the browser cannot read is one line', async () => {
    const list: LocalFile[] = [
      { name: 'gone.jsonl', arrayBuffer: () => Promise.reject(new Error('the file was moved')) },
    ];
    const source = localSource(list);
    // The browser empties a drop's file list once the event is handled.
    list.length = 0;
    const model = new TraceModel();
    await source.open(model).ready;
    expect(model.failures).toEqual(['Could not read the traces: the file was moved']);
    expect(model.loading).toBeUndefined();
    expect(await readLocalFiles([new File(['x'], 'a b.jsonl')])).toEqual([
      { path: 'local/a b.jsonl', bytes: new Uint8Array([120]) },
    ]);
  });

  it('stop being read when the page moves on before they are open', async () => {
    const model = new TraceModel();
    const opened = localSource([new File([readFileSync(MCP_TAPE)], 'everything-stdio.jsonl')]).open(model);
    opened.close();
    opened.close();
    await opened.ready;
    expect(model.sources).toEqual([]);
    expect(model.failures).toEqual([]);
  });
});
