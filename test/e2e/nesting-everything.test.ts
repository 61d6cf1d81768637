/**
 * A real session — the official SDK client with roots, through `tapedeck record`, against server-everything — as
 * pairing ties it and `tapedeck show` prints it. Over stdio nothing on the wire says which request a server's
 * roots/list or log line belongs to: they must never be shown as certain children of the tool call that happened
 * to be running, while progress (tied by its token) is. And the terminal output fits 80 and 160 columns with the
 * emoji and CJK text the session carried, every error message whole.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectExchanges } from '../../src/trace/pairing.js';
import { displayWidth } from '../../src/trace/text-width.js';
import type { TraceLine } from '../../src/trace/types.js';
import {
  connectClient,
  everythingServer,
  makeTempDir,
  readTrace,
  recorded,
  removeTempDir,
  settle,
  TAPEDECK_BIN,
} from '../helpers/peers.js';

const ECHOED = '日本語のメッセージ 👨‍👩‍👧‍👦 ❤️ 🎉';
const MISSING = 'demo://resource/static/document/no-such-document-in-this-server.md';

describe('nesting in a recorded server-everything session', () => {
  let tmp: string | undefined;
  let file: string;
  let lines: TraceLine[];

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-nesting-');
    file = join(tmp, 'everything.jsonl');
    const { client } = await connectClient(
      recorded(everythingServer(), { file }),
      { capabilities: { roots: { listChanged: true } } },
      (c) =>
        c.setRequestHandler(ListRootsRequestSchema, async () => ({
          roots: [{ uri: 'file:///tmp', name: 'tmp' }],
        })),
    );
    try {
      // Started at once, so the roots/list the server sends ~350 ms after initialize comes while it runs.
      await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 1.5, steps: 3 } },
        undefined,
        {
          onprogress: () => {},
        },
      );
      await client.callTool({ name: 'echo', arguments: { message: ECHOED } });
      await settle(() => client.readResource({ uri: MISSING }));
      await client.callTool({ name: 'no-such-tool', arguments: {} });
    } finally {
      await client.close();
    }
    lines = readTrace(file);
  }, 60_000);

  afterAll(() => removeTempDir(tmp));

  it('never ties roots/list or a log line to the running call for certain; progress it does', () => {
    const { exchanges, topLevel } = collectExchanges(lines);
    const call = exchanges.find(
      (x) => x.method === 'tools/call' && x.request.params?.name === 'trigger-long-running-operation',
    );
    expect(call).toBeDefined();
    const roots = exchanges.find((x) => x.method === 'roots/list');
    expect(roots, 'the server asked for roots').toBeDefined();
    // It came while the call ran (the call started right after initialized and lasts 1.5 s): only a guess ties them.
    expect(roots).toMatchObject({ parent: call, via: 'open-request', guessed: true });
    for (const child of call!.children) {
      if (child.kind === 'notification' && child.notification.method === 'notifications/progress')
        expect(child).toMatchObject({ via: 'progressToken', guessed: false });
      else expect(child.guessed).toBe(true);
    }
    expect(
      call!.children.filter((c) => c.kind === 'notification' && c.via === 'progressToken').length,
    ).toBeGreaterThan(0);
    // Log lines the server sent either hang as guesses or stand alone.
    const logs = [
      ...call!.children.filter(
        (c) => c.kind === 'notification' && c.notification.method === 'notifications/message',
      ),
      ...topLevel.filter((n) => n.notification.method === 'notifications/message'),
    ];
    for (const log of logs) if ('via' in log) expect(log.guessed).toBe(true);
  });

  it.each([80, 160])('show fits %i columns, marks the guess, and prints every error whole', (width) => {
    const shown = spawnSync(process.execPath, [TAPEDECK_BIN, 'show', file], {
      env: { ...process.env, COLUMNS: String(width), NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect(shown.status, shown.stderr).toBe(0);
    const out = shown.stdout;
    for (const line of out.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
    const rootsRow = out.split('\n').find((line) => line.includes('← roots/list #0'));
    // Not indented under the call, and marked as a guess.
    expect(rootsRow).toMatch(/^ {2}\+\d+\.\d{3}s {2}← roots\/list #0 maybe for #1$/);
    expect(out).toMatch(/^ {2}\+\d+\.\d{3}s {4}← notifications\/progress +\d\/3$/m);
    const flat = out.replace(/\s+/g, '');
    expect(flat).toContain(`Resource${MISSING}notfound`);
    expect(flat).toContain('toolerror:MCPerror-32602:Toolno-such-toolnotfound');
    expect(flat).toContain(ECHOED.replace(/\s+/g, ''));
  });
});
