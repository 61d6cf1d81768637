import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startViewServer, type ViewServer, viewFiles } from '../../../src/view/server.js';
import { TraceModel } from '../../../viewer/src/data/model.js';
import { servedSource } from '../../../viewer/src/source/served.js';
import { expectedRows, MCP_TAPE, writeRotatedTrace } from '../traces.js';

/** The served source against the server of `tapedeck view` itself (in process, on a free port). */

describe('the files `tapedeck view` serves', () => {
  let dir: string;
  let viewer: string;
  const servers: ViewServer[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-served-'));
    // The page itself is not what these tests read: a stand-in for the built viewer will do.
    viewer = join(dir, 'viewer');
    mkdirSync(viewer);
    writeFileSync(join(viewer, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function serve(files: string[]) {
    const server = await startViewServer({ files: viewFiles(files), dir: viewer });
    servers.push(server);
    const page = new URL(server.url);
    return { server, source: servedSource(new URL('api/', page), page) };
  }

  it('lists them, downloads each while the reader works, stitches rotated segments of one folder', async () => {
    const rotated = writeRotatedTrace(dir);
    const { source } = await serve([MCP_TAPE, ...rotated.files]);
    expect(source.kind).toBe('served');
    const model = new TraceModel();
    const opened = source.open(model);
    expect(model.loading?.text).toBe('Fetching traces…');
    await opened.ready;
    expect(model.failures).toEqual([]);
    expect(model.sources.map((s) => s.info.name)).toEqual(['everything-stdio.jsonl', 'calc.jsonl']);
    expect(model.sources[0]!.rows).toHaveLength(expectedRows(readFileSync(MCP_TAPE, 'utf8')));
    expect(model.sources[1]!.rows).toHaveLength(rotated.rows);
    expect(model.sources[1]!.info.files.map((f) => f.path)).toEqual(['d1/calc.1.jsonl', 'd1/calc.jsonl']);
    // The raw view reads the downloaded bytes.
    expect(model.sources[0]!.info.files[0]!.line(1)).toBe(readFileSync(MCP_TAPE, 'utf8').split('\n')[0]);
  });

  it('names a file that went away after it was listed, and opens the others', async () => {
    const rotated = writeRotatedTrace(mkdtempSync(join(dir, 'gone-')));
    const { source } = await serve([MCP_TAPE, rotated.files[1]!]);
    rmSync(rotated.files[1]!);
    const model = new TraceModel();
    await source.open(model).ready;
    expect(model.failures).toEqual(['calc.jsonl: api/files/1 answered 404']);
    expect(model.sources.map((s) => s.info.name)).toEqual(['everything-stdio.jsonl']);
  });

  it('says it could not fetch the traces when the server is gone, and never asks without the token', async () => {
    const { server, source } = await serve([MCP_TAPE]);
    await server.close();
    servers.length = 0;
    const model = new TraceModel();
    await source.open(model).ready;
    expect(model.failures).toEqual([expect.stringMatching(/^Could not fetch the traces: /)]);
    expect(model.loading).toBeUndefined();

    const again = await serve([MCP_TAPE]);
    const wrong = new URL(again.server.url.replace(again.server.token, '0'.repeat(32)));
    const refused = new TraceModel();
    await servedSource(new URL('api/', wrong), wrong).open(refused).ready;
    expect(refused.failures).toEqual(['Could not fetch the traces: the file list answered 403']);
  });
});
