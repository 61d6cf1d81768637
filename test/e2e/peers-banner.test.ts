/**
 * A real server that prints a banner on stdout before its first JSON-RPC message. The SDK client skips the line
 * (reporting it through `onerror`); through `tapedeck record` it must see the very same thing, and the trace must
 * keep the banner as a `text` line rather than lose it or mistake it for a message.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TextLine, TraceLine } from '../../src/trace/types.js';
import {
  bannerEverythingServer,
  type CommandLine,
  connectClient,
  makeTempDir,
  mcpTapeProblems,
  readTrace,
  recorded,
  removeTempDir,
  rpc,
  settle,
  type TraceParts,
  traceParts,
} from '../helpers/peers.js';

const BANNER = 'everything server ⚡ starting — this banner is not JSON';

async function runSession(target: CommandLine) {
  const errors: string[] = [];
  let client!: Client;
  const connected = await connectClient(target, { capabilities: {} }, (c) => {
    c.onerror = (err) => errors.push(err.message);
    client = c;
  });
  try {
    const results = {
      echo: await settle(() => client.callTool({ name: 'echo', arguments: { message: 'after the banner' } })),
      prompt: await settle(() => client.getPrompt({ name: 'simple-prompt' })),
    };
    return { results, errors, received: connected.transport.received };
  } finally {
    await client.close();
  }
}

describe('a server that prints a banner on stdout, through tapedeck record', () => {
  let tmp: string | undefined;
  let direct: Awaited<ReturnType<typeof runSession>>;
  let proxied: Awaited<ReturnType<typeof runSession>>;
  let lines: TraceLine[];
  let trace: TraceParts;

  beforeAll(async () => {
    tmp = await makeTempDir();
    const traceFile = join(tmp, 'banner.jsonl');
    direct = await runSession(bannerEverythingServer(BANNER));
    proxied = await runSession(recorded(bannerEverythingServer(BANNER), { file: traceFile }));
    lines = readTrace(traceFile);
    trace = traceParts(lines);
  });

  afterAll(() => removeTempDir(tmp));

  it('lets the client work exactly as it does directly', () => {
    expect(proxied.results.echo).toMatchObject({
      content: [{ type: 'text', text: 'Echo: after the banner' }],
    });
    expect(proxied.results).toEqual(direct.results);
    // The client saw the banner both times (one parse error each), so the line was forwarded, not swallowed.
    expect(direct.errors).toHaveLength(1);
    expect(proxied.errors).toEqual(direct.errors);
  });

  it('keeps the banner as an "out" text line before the first message', () => {
    const texts = trace.records.filter((line): line is TextLine => line.type === 'text');
    expect(texts).toEqual([expect.objectContaining({ type: 'text', dir: 'out', text: BANNER })]);
    const firstOut = trace.messages.find((m) => m.dir === 'out');
    expect(texts[0]!.seq!).toBeLessThan(firstOut!.seq!);
    expect(trace.end.counts).toMatchObject({ text: 1 });
  });

  it('records the messages around it unchanged', () => {
    expect(trace.out).toEqual(proxied.received);
    expect(rpc(trace.out[0]!).result).toHaveProperty('serverInfo');
    expect(mcpTapeProblems(lines)).toEqual([]);
    expect(trace.end).toMatchObject({ reason: 'process_exit', exitCode: 0 });
  });
});
