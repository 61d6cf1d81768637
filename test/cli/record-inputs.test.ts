/**
 * `tapedeck record` flags a user gets wrong, and what the files of a recording look like when runs meet: a header
 * value HTTP cannot carry and a bad --allow-host are one line and exit 2 (a secret never printed), a listener
 * that cannot start leaves no file, recordings started in the same millisecond each keep their own trace, an
 * existing --file is overwritten with a warning, and a bridge that never reached its upstream says so.
 * The end-to-end cases run the built CLI (`npx tsc -p tsconfig.build.json` first).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHarness } from '../helpers/cli.js';
import { freePort, startUpstream } from '../helpers/http-proxy.js';
import { readTrace, spawnTapedeck } from '../helpers/proxy.js';

const io = useCliHarness('tapedeck-record-inputs-');

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';

/** Runs the built CLI with `stdin` as its input, to the end. */
async function cli(args: string[], stdin: string, env: NodeJS.ProcessEnv = process.env) {
  const child = spawnTapedeck(args, { env });
  child.child.stdin.end(stdin);
  return child.done;
}

describe('record --header with a value HTTP cannot carry', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} syntax of --header
  const header = ['--header', 'Authorization: Bearer ${SECRET_TOKEN}'];

  it.each([
    ['the listening proxy', ['--listen', '127.0.0.1:0']],
    ['the stdio bridge', ['--stdio']],
  ])(
    'is refused by %s when the flags are read: one line naming the header, not the value, exit 2',
    async (_, mode) => {
      io.env.SECRET_TOKEN = 'tok-abc123\nline2';
      const file = join(io.dir, 'h.jsonl');
      const code = await io.run([
        'record',
        '--upstream',
        'http://127.0.0.1:1/mcp',
        ...mode,
        ...header,
        '--file',
        file,
      ]);
      expect(code).toBe(2);
      expect(io.stderr).toBe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} syntax of --header
        'tapedeck: --header Authorization: its value (from ${SECRET_TOKEN}) holds a line feed (LF), which an HTTP header cannot carry; expected one line of printable text (the value is not shown)\n',
      );
      expect(io.stderr).not.toContain('tok-abc123');
      expect(existsSync(file)).toBe(false);
    },
  );
});

describe('record --allow-host', () => {
  it.each([
    ['', /^tapedeck: --allow-host must be a host name such as .+; got ''\n$/],
    ['evil com', /^tapedeck: --allow-host must be a host name .+; got 'evil com'\n$/],
    ['*.evil.com', /^tapedeck: --allow-host takes \* alone .+; got '\*\.evil\.com'.*\n$/],
    [
      'evil.com:99999',
      /^tapedeck: --allow-host port must be between 0 and 65535; got 99999 in 'evil\.com:99999'\n$/,
    ],
    ['http://', /^tapedeck: --allow-host must be a host name .+; got 'http:\/\/'\n$/],
    ['[not-v6]', /^tapedeck: --allow-host must be a host name .+\n$/],
  ])('refuses %j with one line, exit 2', async (value, message) => {
    expect(await io.run(['record', '--upstream', 'http://127.0.0.1:1/mcp', '--allow-host', value])).toBe(2);
    expect(io.stderr).toMatch(message);
  });

  it('takes a host name, host:port, an IPv6 address, or a URL (saying it takes the URL’s host)', async () => {
    const { parseAllowHost } = await import('../../src/cli/record/http-flags.js');
    const notes: string[] = [];
    const note = (text: string) => notes.push(text);
    expect(parseAllowHost('MCP.Example.com', note)).toBe('mcp.example.com');
    expect(parseAllowHost('mcp.example.com:7430', note)).toBe('mcp.example.com');
    expect(parseAllowHost('10.0.0.5', note)).toBe('10.0.0.5');
    expect(parseAllowHost('[::1]:7430', note)).toBe('[::1]');
    expect(parseAllowHost('fe80::1', note)).toBe('[fe80::1]');
    expect(parseAllowHost('*', note)).toBe('*');
    expect(notes).toEqual([]);
    expect(parseAllowHost('http://evil.com', note)).toBe('evil.com');
    expect(notes).toEqual(['--allow-host http://evil.com: a URL; allowing its host name evil.com']);
  });
});

describe('record --upstream when the listener cannot start', () => {
  it('leaves no trace file (--file, --out), exit 1 with one line', async () => {
    const busy = await startUpstream((_req, res) => res.end());
    try {
      const listen = `127.0.0.1:${new URL(busy.origin).port}`;
      const file = join(io.dir, 'busy.jsonl');
      const out = join(io.dir, 'traces');
      for (const where of [
        ['--file', file],
        ['--out', out],
      ]) {
        io.stderr = '';
        expect(
          await io.run(['record', '--upstream', 'http://127.0.0.1:1/mcp', '--listen', listen, ...where]),
        ).toBe(1);
        expect(io.stderr).toMatch(/^tapedeck: cannot listen on 127\.0\.0\.1:\d+: the port is in use; .+\n$/);
      }
      expect(existsSync(file)).toBe(false);
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    } finally {
      await busy.close();
    }
  });

  it('leaves an existing --file as it was', async () => {
    const busy = await startUpstream((_req, res) => res.end());
    try {
      const file = join(io.dir, 'kept.jsonl');
      writeFileSync(file, 'an older trace\n');
      const listen = `127.0.0.1:${new URL(busy.origin).port}`;
      expect(
        await io.run(['record', '--upstream', 'http://127.0.0.1:1/mcp', '--listen', listen, '--file', file]),
      ).toBe(1);
      expect(readFileSync(file, 'utf8')).toBe('an older trace\n');
    } finally {
      await busy.close();
    }
  });
});

describe('record: the built CLI and its trace files', () => {
  it('keeps every trace of recordings started in the same millisecond with the same --out and --label', async () => {
    // Every run reads the same clock, so they all want the same name.
    const clock = join(io.dir, 'fixed-clock.mjs');
    writeFileSync(
      clock,
      "Date.prototype.toISOString = function () { return '2026-01-02T03:04:05.678Z'; };\n",
    );
    const env = { ...process.env, NODE_OPTIONS: `--import=${clock}` };
    const out = join(io.dir, 'par');
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        cli(
          [
            'record',
            '--out',
            out,
            '--label',
            'same',
            '--',
            process.execPath,
            '-e',
            'process.stdin.pipe(process.stdout)',
          ],
          PING,
          env,
        ),
      ),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const files = readdirSync(out).sort();
    expect(files).toEqual([
      '20260102T030405.678Z-same-2.jsonl',
      '20260102T030405.678Z-same-3.jsonl',
      '20260102T030405.678Z-same-4.jsonl',
      '20260102T030405.678Z-same-5.jsonl',
      '20260102T030405.678Z-same-6.jsonl',
      '20260102T030405.678Z-same.jsonl',
    ]);
    for (const name of files) {
      expect(
        readTrace(join(out, name))
          .filter((l) => l.type !== 'event')
          .map((l) => l.type ?? l.dir),
      ).toEqual(['meta', 'in', 'out', 'end']);
    }
  });

  it('overwrites an existing --file, saying so in one line', async () => {
    const file = join(io.dir, 'given.jsonl');
    writeFileSync(file, 'an older trace\n');
    const exit = await cli(
      ['record', '--file', file, '--', process.execPath, '-e', 'process.stdin.pipe(process.stdout)'],
      PING,
    );
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe(
      `tapedeck: overwriting ${file}, which already held 15 bytes\ntapedeck: recording to ${file}\n`,
    );
    expect(
      readTrace(file)
        .filter((l) => l.type !== 'event')
        .map((l) => l.type ?? l.dir),
    ).toEqual(['meta', 'in', 'out', 'end']);
  });

  it('--stdio: exits 1 and ends the trace with transport_error when the upstream was never reached', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const file = join(io.dir, 'bridge.jsonl');
    const exit = await cli(['record', '--upstream', url, '--stdio', '--file', file], PING);
    expect(exit.code).toBe(1);
    const answer = JSON.parse(exit.stdout.toString('utf8'));
    expect(answer).toMatchObject({ id: 1, error: { code: -32000 } });
    const lines = readTrace(file);
    expect(lines.find((l) => l.dir === 'out')).toMatchObject({ raw: answer, producedBy: 'tapedeck' });
    expect(lines.at(-1)).toMatchObject({ type: 'end', reason: 'transport_error', exitCode: 1 });
  });
});
