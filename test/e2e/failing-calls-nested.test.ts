/**
 * A failing call counted once wherever errors are counted, when the calls it made failed with it: the official SDK
 * client refuses server-everything's sampling requests, so each `trigger-sampling-request` tool call fails with its
 * nested `sampling/createMessage` (tied to it by the HTTP stream). Recorded with `tapedeck record --upstream`: two
 * failing calls in eight red rows. `show --errors`, the web viewer on the trace read whole and the paged server all
 * count two failures, and an echo call and a refused sampling request under a call that still succeeded stay apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import { TraceIndex } from '../../src/view/paged/trace-index.js';
import { startViewServer, viewFiles } from '../../src/view/server.js';
import { errorPosition } from '../../viewer/src/data/error-nav.js';
import { isErrorRow } from '../../viewer/src/data/rows.js';
import { pagedApi } from '../../viewer/src/source/paged-api.js';
import { startEverything } from '../helpers/http-proxy.js';
import { makeTempDir, removeTempDir } from '../helpers/peers.js';
import { recordUpstream, spawnTapedeck } from '../helpers/proxy.js';
import { openModel } from '../viewer/open-model.js';

async function session(url: string): Promise<void> {
  const client = new Client(
    { name: 'refusing-client', version: '1.0.0' },
    { capabilities: { sampling: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    throw new McpError(-32600, 'sampling refused by the user');
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  for (const prompt of ['first', 'second']) {
    const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt } });
    expect(result.isError).toBe(true);
  }
  await client.callTool({ name: 'echo', arguments: { message: 'fine' } });
  await client.close();
}

describe('a call that failed with the calls it made counts as one failure', () => {
  let tmp: string | undefined;
  let trace = '';

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-failing-nested-');
    const server = await startEverything('streamableHttp');
    try {
      const { recorder, url } = await recordUpstream(`${server.origin}/mcp`, tmp);
      await session(url);
      recorder.child.kill('SIGINT');
      expect((await recorder.done).code).toBe(0);
    } finally {
      await server.stop();
    }
    trace = join(tmp, readdirSync(tmp).find((file) => file.endsWith('.jsonl'))!);
  }, 60_000);

  afterAll(async () => {
    await removeTempDir(tmp);
  });

  it('the web viewer: eight red rows, two failing calls, the sampling requests under them', async () => {
    const model = await openModel({ 'd0/run.jsonl': readFileSync(trace, 'utf8') });
    const rows = model.rows();
    const red = rows.filter(isErrorRow);
    expect(red.map((r) => r.exchange?.method)).toEqual([
      'tools/call',
      'sampling/createMessage',
      'sampling/createMessage',
      'tools/call',
      'tools/call',
      'sampling/createMessage',
      'sampling/createMessage',
      'tools/call',
    ]);
    expect(
      red.filter((r) => r.exchange?.method === 'sampling/createMessage').every((r) => r.depth === 1),
    ).toBe(true);
    expect(errorPosition(rows, -1).count).toBe(2);
    // Either row of a sampling request stands where its call does: "error 2 of 2".
    const lastSampling = rows.indexOf(red[6]!);
    expect(errorPosition(rows, lastSampling)).toEqual({ count: 2, at: 2 });
  });

  it('the paged server counts the same two', async () => {
    const files = viewFiles(await traceFilesFor([trace]));
    const index = await TraceIndex.open(trace, files);
    await index.finished;
    const server = await startViewServer({ files, paged: index });
    try {
      const api = pagedApi(new URL('api/', server.url.split('#')[0]));
      expect((await api.errors({}, undefined, 0)).count).toBe(2);
      expect((await api.errors({ errors: true }, undefined, 0)).count).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('show --errors lists the two calls with their sampling requests and ends with their two ids', async () => {
    const run = await spawnTapedeck(['show', '--errors', trace], {
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' },
    }).done;
    expect(run.code).toBe(0);
    const out = run.stdout.toString('utf8');
    expect(out.match(/sampling\/createMessage/g)?.length).toBeGreaterThanOrEqual(2);
    expect(out).not.toMatch(/echo/);
    const last = out.trim().split('\n').at(-1)!;
    expect(last).toMatch(/^failed: #\S+ #\S+$/);
  });
});
