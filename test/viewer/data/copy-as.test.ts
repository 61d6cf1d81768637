import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayTransport } from '../../../src/replay/sdk/replay-transport.js';
import { openTrace } from '../../../src/trace/io.js';
import type { Exchange } from '../../../src/trace/pairing.js';
import {
  cassetteOf,
  curlCommand,
  httpHeadOf,
  jsonRpcLine,
  shellQuote,
} from '../../../viewer/src/data/copy-as.js';
import type { SourceModel } from '../../../viewer/src/data/source-model.js';
import { REPO_ROOT } from '../../helpers/peers.js';
import { makeClient } from '../../helpers/sdk-session.js';
import { openModel, text } from '../open-model.js';
import { MCP_TAPE } from '../traces.js';

const HTTP = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http-auth.jsonl');

const call = (source: SourceModel, tool: string): Exchange =>
  source.exchanges.find((e) => e.method === 'tools/call' && e.request.params?.name === tool)!;

const cassetteSource = (source: SourceModel) => ({
  rows: source.rows,
  meta: source.info.meta,
  requestRow: (e: Exchange) => source.requestRow(e),
});

describe('copy a request as', () => {
  let dir: string;
  let stdio: SourceModel;
  let http: SourceModel;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-copy-as-'));
    stdio = (await openModel({ 'd0/everything.jsonl': text(MCP_TAPE) })).sources[0]!;
    http = (await openModel({ 'd0/everything-http-auth.jsonl': text(HTTP) })).sources[0]!;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a JSON-RPC line: the request as it travelled, one line', () => {
    const line = jsonRpcLine(call(stdio, 'get-sum'));
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      method: 'tools/call',
      params: { name: 'get-sum', arguments: { a: 1, b: 2 } },
      jsonrpc: '2.0',
      id: expect.any(Number),
    });
  });

  it('curl: the recorded head and body, redacted values still redacted and named', () => {
    const echo = call(http, 'echo');
    const head = httpHeadOf(http.rows, http.requestRow(echo)!)!;
    expect(head).toMatchObject({ type: 'http', dir: 'in', method: 'POST' });
    const curl = curlCommand(head, echo.requestRef.line.raw, http.info.meta);
    const lines = curl.text.split('\n');
    expect(lines[0]).toBe(
      '# mcp-session-id, authorization were redacted in the trace: put real values in before running',
    );
    // The answer is an event stream: -N prints it as it comes.
    expect(lines[1]).toBe('curl -N -X POST http://127.0.0.1:39211/mcp \\');
    expect(curl.text).toContain("-H 'mcp-session-id: [REDACTED:mcp-session-id:e17389e971d2]'");
    expect(curl.text).toContain("-H 'mcp-protocol-version: 2025-11-25'");
    expect(curl.text).toContain("-H 'authorization: [REDACTED:authorization-header]'");
    expect(curl.text).toContain("-H 'accept: application/json, text/event-stream'");
    for (const left of ['host:', 'content-length:', 'connection:', 'accept-encoding:'])
      expect(curl.text).not.toContain(left);
    const body = /--data-raw '(.*)'$/.exec(curl.text)![1]!;
    expect(JSON.parse(body)).toMatchObject({ method: 'tools/call', params: { name: 'echo' } });
    expect(curl.redacted).toEqual(['mcp-session-id', 'authorization']);
  });

  it('curl: nothing to send again for a stdio recording', () => {
    const echo = call(stdio, 'echo');
    expect(httpHeadOf(stdio.rows, stdio.requestRow(echo)!)).toBeUndefined();
  });

  it('quotes words for a POSIX shell', () => {
    expect(shellQuote('http://a/b?c=1')).toBe("'http://a/b?c=1'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('plain-word')).toBe('plain-word');
  });

  async function replayOne(name: string, cassette: string) {
    const file = join(dir, name);
    writeFileSync(file, cassette);
    // The cassette opens as a trace tapedeck reads, with no complaint.
    const trace = await openTrace(file);
    const lines = [];
    for await (const entry of trace.lines()) lines.push(entry.line);
    expect(trace.diagnostics).toEqual([]);
    const transport = replayTransport(file);
    const { client, sampled } = makeClient();
    await client.connect(transport);
    return { transport, client, sampled, lines };
  }

  it('a cassette: replay serves the one call, its progress and the sampling it asked for, nothing left over', async () => {
    const long = await replayOne(
      'long.jsonl',
      await cassetteOf(cassetteSource(stdio), call(stdio, 'trigger-long-running-operation')),
    );
    const progress: number[] = [];
    const result = await long.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 4 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(result.content).toEqual([
      { type: 'text', text: 'Long running operation completed. Duration: 2 seconds, Steps: 4.' },
    ]);
    await long.transport.idle();
    expect(long.transport.report()).toMatchObject({ used: 2, unused: [] });
    // initialize, its answer, initialized, the call, four progress notifications, the answer, end.
    expect(
      long.lines.map((l) =>
        l.type === 'end' ? 'end' : ((l as { raw: { method?: string } }).raw.method ?? 'answer'),
      ),
    ).toEqual([
      'initialize',
      'answer',
      'notifications/initialized',
      'tools/call',
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'answer',
      'end',
    ]);
    await long.client.close();

    const sampling = await replayOne(
      'sampling.jsonl',
      await cassetteOf(cassetteSource(stdio), call(stdio, 'trigger-sampling-request')),
    );
    const answer = await sampling.client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hi', maxTokens: 20 },
    });
    expect(sampling.sampled).toEqual(['Resource trigger-sampling-request context: hi']);
    expect(JSON.stringify(answer)).toContain('canned sampling reply');
    await sampling.transport.idle();
    expect(sampling.transport.report()).toMatchObject({ used: 2, unused: [] });
    await sampling.client.close();
  });

  it('a cassette from an HTTP recording replays the same way', async () => {
    const sum = await replayOne('sum.jsonl', await cassetteOf(cassetteSource(http), call(http, 'get-sum')));
    const result = await sum.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(JSON.stringify(result.content)).toContain('3');
    await sum.transport.idle();
    expect(sum.transport.report()).toMatchObject({ used: 2, unused: [] });
    await sum.client.close();
  });
});
