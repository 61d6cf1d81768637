/**
 * What verify reports about answers that are not plain responses: a server→client request the recorded client
 * never answered (the MCP Inspector leaves `roots/list` unanswered) is left unanswered again and said so in those
 * words — failing the run unless `--allow-unanswered` — and an HTTP error with a JSON-RPC body is shown as what
 * the server said, not as a missing response.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../helpers/http-proxy.js';
import { makeTempDir, removeTempDir } from '../helpers/peers.js';
import { fixtureServer, spawnTapedeck } from '../helpers/proxy.js';

let dir: string;
let cassette: string;
const ROOTS_SERVER = fixtureServer('roots-server.mjs');

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-verify-answers-');
  cassette = join(dir, 'roots.jsonl');
  // A client that declares roots and never answers roots/list, recorded against the SDK server that asks it.
  const record = spawnTapedeck(['record', '--file', cassette, '--', ...ROOTS_SERVER]);
  const lines = [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { roots: {} },
        clientInfo: { name: 'silent', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'roots', arguments: {} } },
  ];
  record.child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  const until = Date.now() + 10_000;
  while (!record.stdoutSoFar().toString().includes('no roots answer in time') && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 20));
  record.child.stdin.end();
  expect((await record.done).code).toBe(0);
});
afterAll(() => removeTempDir(dir));

async function verify(args: string[]) {
  const exit = await spawnTapedeck(['verify', ...args]).done;
  return { code: exit.code, stdout: exit.stdout.toString('utf8') };
}

describe('a server request the recorded client never answered', () => {
  it('is left unanswered again, and the summary says the client side left it so (exit 1)', async () => {
    const { code, stdout } = await verify([cassette, '--', ...ROOTS_SERVER]);
    expect(stdout).toBe(
      'verified 2 exchanges: 2 match, 0 differ\n' +
        '✗ the client side left 1 server request unanswered (roots/list), as it did in the recording; pass --allow-unanswered to accept it\n',
    );
    expect(code).toBe(1);
  });

  it('is accepted with --allow-unanswered (exit 0), and counted in --json', async () => {
    const allowed = await verify([cassette, '--allow-unanswered', '--', ...ROOTS_SERVER]);
    expect(allowed.stdout).toContain('accepted (--allow-unanswered)');
    expect(allowed.code).toBe(0);
    const json = await verify([cassette, '--json', '--', ...ROOTS_SERVER]);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      unanswered: string[];
      summary: { unanswered: number };
    };
    expect([report.ok, report.unanswered, report.summary.unanswered]).toEqual([false, ['roots/list'], 1]);
  });
});

describe('an HTTP error with a JSON-RPC body', () => {
  it('is shown as what the server said, with its status, not as a missing response', async () => {
    const recorded = join(dir, 'http.jsonl');
    const t = '2026-01-01T00:00:00.000Z';
    const rows = [
      { v: 1, type: 'meta', startedAt: t, label: 'http', transport: 'http', url: 'http://127.0.0.1:1/mcp' },
      {
        t,
        seq: 1,
        dir: 'in',
        conn: 's1',
        raw: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } },
      },
      {
        t,
        seq: 2,
        dir: 'out',
        conn: 's1',
        raw: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } },
      },
      { t, type: 'end', durationMs: 1, reason: 'producer_shutdown' },
    ];
    writeFileSync(recorded, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    // A server that refuses the POST as a whole, as the SDK's servers do for a request outside a session.
    const upstream = await startUpstream((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: Server not initialized' },
            id: null,
          }),
        );
      });
    });
    try {
      const { code, stdout } = await verify([recorded, '--upstream', `${upstream.origin}/mcp`]);
      expect(stdout).toContain('the server refused the request with HTTP 400 and this JSON-RPC error:');
      expect(stdout).toContain('live     {"code":-32000,"message":"Bad Request: Server not initialized"}');
      expect(stdout).not.toContain('without a response');
      expect(code).toBe(1);
    } finally {
      await upstream.close();
    }
  });
});
