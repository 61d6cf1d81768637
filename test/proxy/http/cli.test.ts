/**
 * `tapedeck record --upstream` as a user runs it: bad input is one line and exit 2; the built CLI listens, says
 * where on stderr, records, and on SIGTERM closes the trace with `producer_shutdown` and exits 0.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useCliHarness } from '../../helpers/cli.js';
import { startUpstream } from '../../helpers/http-proxy.js';
import { type ProxyRun, readTrace, spawnTapedeck, waitFor } from '../../helpers/proxy.js';

const io = useCliHarness('tapedeck-record-http-');

/** The line `record --upstream` prints once it listens; tests read the port from it. */
const LISTENING = /^tapedeck: recording (http:\/\/127\.0\.0\.1:(\d+)\/mcp) → (\S+) \(trace: (.+)\)$/m;

describe('tapedeck record --upstream: bad input', () => {
  it.each([
    [
      ['--upstream', 'notaurl'],
      /^tapedeck: --upstream must be an http:\/\/ or https:\/\/ URL such as .+; got 'notaurl'\n$/,
    ],
    [
      ['--upstream', 'ftp://host/mcp'],
      /^tapedeck: --upstream must be an http:\/\/ or https:\/\/ URL; got the scheme 'ftp:'\n$/,
    ],
    [
      ['--upstream', 'http://h/mcp', '--listen', '7430'],
      /^tapedeck: --listen must be HOST:PORT such as 127\.0\.0\.1:7430; got '7430'\n$/,
    ],
    [
      ['--upstream', 'http://h/mcp', '--listen', '127.0.0.1:70000'],
      /^tapedeck: --listen port must be between 0 and 65535; got 70000\n$/,
    ],
    [
      ['--upstream', 'http://h/mcp', '--', 'node', 'server.js'],
      /^tapedeck: --upstream records a server reached over HTTP and takes no server command; give one or the other\n$/,
    ],
    [
      ['--listen', '127.0.0.1:0', '--', 'node', 'server.js'],
      /^tapedeck: --listen only applies with --upstream URL\n$/,
    ],
    [['--stdio', '--', 'node', 'server.js'], /^tapedeck: --stdio only applies with --upstream URL\n$/],
    [
      ['--upstream', 'http://h/mcp', '--stdio', '--listen', '127.0.0.1:0'],
      /^tapedeck: --listen does not apply with --stdio: the client talks to tapedeck over stdio, not HTTP\n$/,
    ],
    [
      ['--upstream', 'http://h/mcp', '--sse'],
      /^tapedeck: --sse only applies with --upstream URL --stdio \(the listening proxy serves whichever transport the client speaks\)\n$/,
    ],
    [
      ['--upstream', 'http://h/mcp', '--stdio', '--header', 'no colon'],
      /^tapedeck: --header .*no colon.*\n$/,
    ],
    [['--upstream', 'http://h/mcp', '--header', 'no colon'], /^tapedeck: --header .*no colon.*\n$/],
    [
      ['--upstream', 'http://h/mcp', '--header', 'Host: elsewhere.example'],
      /^tapedeck: --header Host cannot be set: each request sets it itself; give headers such as Authorization\n$/,
    ],
    [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} syntax of --header
      ['--upstream', 'http://h/mcp', '--header', 'Authorization: Bearer ${TAPEDECK_TEST_UNSET_VAR}'],
      /^tapedeck: --header Authorization: the environment variable TAPEDECK_TEST_UNSET_VAR is not set\n$/,
    ],
  ])('record %j exits 2 with one line', async (args, message) => {
    expect(await io.run(['record', ...args])).toBe(2);
    expect(io.stderr).toMatch(message);
  });

  it('exits 1 with one line when the port is taken', async () => {
    const busy = await startUpstream((_req, res) => res.end());
    try {
      const port = new URL(busy.origin).port;
      const file = join(io.dir, 'busy.jsonl');
      expect(
        await io.run([
          'record',
          '--upstream',
          'http://127.0.0.1:1/mcp',
          '--listen',
          `127.0.0.1:${port}`,
          '--file',
          file,
        ]),
      ).toBe(1);
      expect(io.stderr).toBe(
        `tapedeck: cannot listen on 127.0.0.1:${port}: the port is in use; pick another with --listen (EADDRINUSE)\n`,
      );
    } finally {
      await busy.close();
    }
  });
});

describe('tapedeck record --upstream: the built CLI', () => {
  let proxy: ProxyRun | undefined;

  afterEach(() => {
    if (proxy && proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    proxy = undefined;
  });

  /** `tapedeck record --upstream URL --listen 127.0.0.1:0 --file FILE …`, once it says where it listens. */
  async function startCli(upstream: string, file: string, extra: string[] = [], env = process.env) {
    proxy = spawnTapedeck(
      ['record', '--upstream', upstream, '--listen', '127.0.0.1:0', '--file', file, ...extra],
      {
        env,
      },
    );
    await waitFor(() => LISTENING.test(proxy!.stderrSoFar()), 10_000, 'the listening line');
    const [, url, , shown, tracePath] = LISTENING.exec(proxy.stderrSoFar())!;
    return { run: proxy, url: url!, shown, tracePath };
  }

  /** A JSON-RPC ping POSTed to the proxy. */
  const ping = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });

  it('prints where it listens, records an exchange, and ends the trace on SIGTERM', async () => {
    const upstream = await startUpstream((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
      });
    });
    try {
      const file = join(io.dir, 'cli.jsonl');
      const { run, url, shown, tracePath } = await startCli(
        `${upstream.origin}/mcp?token=s3cr3t-value`,
        file,
      );
      expect(shown).toBe(`${upstream.origin}/mcp?token=[REDACTED:url-query]`);
      expect(tracePath).toBe(file);
      const res = await ping(url);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      run.child.kill('SIGTERM');
      const exit = await run.done;
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
      const lines = readTrace(file);
      expect(lines[0]).toMatchObject({
        type: 'meta',
        transport: 'http',
        label: `127.0.0.1-${new URL(upstream.origin).port}`,
      });
      expect(lines[0]!.url).toBe(shown);
      expect(lines.at(-1)).toMatchObject({
        type: 'end',
        reason: 'producer_shutdown',
        counts: { in: 1, out: 1 },
      });
      expect(lines.filter((l) => l.type === 'http').map((l) => l.dir)).toEqual(['in', 'out']);
      expect(JSON.stringify(lines)).not.toContain('s3cr3t-value');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await upstream.close();
    }
  });

  it('says once on stderr that the upstream asks for OAuth, and how tapedeck stands in for it', async () => {
    const upstream = await startUpstream((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://h/.well-known/x"' });
        res.end();
      });
    });
    try {
      const { run, url } = await startCli(`${upstream.origin}/mcp`, join(io.dir, 'oauth.jsonl'));
      for (let i = 0; i < 2; i++) expect((await ping(url)).status).toBe(401);
      run.child.kill('SIGTERM');
      const exit = await run.done;
      const warnings = exit.stderr
        .split('\n')
        .filter((line) => line.startsWith('tapedeck: note: the upstream'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('the upstream asks for OAuth (a 401 Bearer challenge on /mcp)');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} syntax of --header
      expect(warnings[0]).toContain("tapedeck can send one: --header 'Authorization: Bearer ${TOKEN}'");
    } finally {
      await upstream.close();
    }
  });

  it('sends the upstream a --header of its own, with its value from the environment and out of the trace', async () => {
    const upstream = await startUpstream((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.headers.authorization !== 'Bearer from-env-0123456789') {
          res.writeHead(401, { 'www-authenticate': 'Bearer' });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
      });
    });
    try {
      const file = join(io.dir, 'header.jsonl');
      const { run, url } = await startCli(
        `${upstream.origin}/mcp`,
        file,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} syntax of --header
        ['--header', 'Authorization: Bearer ${MCP_TEST_TOKEN}'],
        { ...process.env, MCP_TEST_TOKEN: 'from-env-0123456789' },
      );
      // The client sends no token, or the wrong one: the upstream gets tapedeck's.
      expect((await ping(url)).status).toBe(200);
      expect((await ping(url, { authorization: 'Bearer client-own' })).status).toBe(200);
      run.child.kill('SIGTERM');
      expect((await run.done).code).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain('from-env-0123456789');
      expect(readTrace(file).find((l) => l.type === 'event' && l.name === 'listen')).toMatchObject({
        adds: ['Authorization'],
      });
    } finally {
      await upstream.close();
    }
  });
});
