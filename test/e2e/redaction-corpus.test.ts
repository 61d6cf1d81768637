/**
 * The secret corpus through the real recorders: every provider format's fabricated example and the shapes only
 * their structure gives away, placed in tool arguments, results, error messages, stderr (one write, a split write, a
 * multi-line block), the command line (bare and `--opt=`), HTTP headers and query strings — recorded by
 * `tapedeck record` (stdio) and `record --upstream` (HTTP) with server-everything and the SDK client where the
 * placement allows, a fixture server where it needs one. No fragment of any secret may reach a trace file, the
 * client must get every byte unchanged, and the redacted cassette must still replay.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEverything, startEverything } from '../helpers/http-proxy.js';
import { EVERYTHING_SERVER } from '../helpers/peers.js';
import { FIXTURE_SERVERS, makeTempDir, removeTempDir, TAPEDECK_BIN } from '../helpers/proxy.js';
import { type CorpusSecret, corpus, fragments, singleLine } from './corpus/secrets.js';

const CORPUS = corpus();

/** Numbers under secret names: PINs, one-time codes, a numeric password or key (ten digits, so none is a count). */
const NUMBERS = (() => {
  const keys = ['password', 'pin_code', 'otp', 'passcode', 'api_key', 'secret', 'auth_token', 'cvv', 'totp'];
  const values = keys.map((_, i) => 8_274_619_305 + i * 1_000_003);
  return {
    kinds: keys.map((key) => `number under ${key}`),
    values,
    arguments: Object.fromEntries(keys.map((key, i) => [key, values[i]])),
  };
})();

/** Names that only sound like a secret's: they must come through as they were. */
const NOT_SECRETS = {
  secret_santa: 'Grace draws Ada',
  token_usage: { input_tokens: 1204, output_tokens: 317, total_tokens: 1521 },
  password_policy: { min_length: 12, require_digit: true, max_age_days: 90 },
  passwordField: {
    type: 'password',
    label: 'Password',
    placeholder: 'at least 12 characters',
    required: true,
  },
  secret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-credentials-AbCdEf',
};
const PLACEMENTS = [
  'arguments',
  'results',
  'error messages',
  'stderr, one write',
  'stderr, split write',
  'stderr, multi-line block',
  'command line, bare',
  'command line, --opt=',
  'HTTP headers',
  'HTTP query string',
  'percent-encoded, under no name',
  'Referer, Link and Content-Location',
  'name/value pairs',
  'numbers under secret names',
] as const;
type Placement = (typeof PLACEMENTS)[number];

/** Per placement: the kinds placed there, and those a fragment of which reached the trace. */
const outcome = new Map<Placement, { placed: string[]; leaked: string[] }>();

function judge(placement: Placement, entries: readonly CorpusSecret[], traceText: string): void {
  const leaked = entries.filter((entry) => fragments(entry.secret).some((part) => traceText.includes(part)));
  outcome.set(placement, { placed: entries.map((e) => e.kind), leaked: leaked.map((e) => e.kind) });
}

let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-corpus-');
  env = { ...process.env, XDG_CONFIG_HOME: join(dir, 'xdg'), TAPEDECK_HOME: join(dir, 'home') };
  delete env.TAPEDECK_REDACT;
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify(CORPUS.map(({ kind, text }) => ({ kind, text }))));
});

afterAll(async () => {
  const rows = PLACEMENTS.filter((p) => outcome.has(p)).map((p) => {
    const { placed, leaked } = outcome.get(p)!;
    const rate = (((placed.length - leaked.length) / placed.length) * 100).toFixed(1);
    return `  ${p.padEnd(36)} ${String(placed.length - leaked.length).padStart(3)}/${placed.length} hidden (${rate}%)${leaked.length ? `  leaked: ${leaked.join(', ')}` : ''}`;
  });
  process.stdout.write(`redaction corpus: ${CORPUS.length} secrets\n${rows.join('\n')}\n`);
  await removeTempDir(dir);
});

/** Every file in `folder`, names and bytes, as one text. */
function folderText(folder: string): string {
  return readdirSync(folder)
    .map((name) => `${name}\n${readFileSync(join(folder, name), 'utf8')}`)
    .join('\n');
}

describe('the corpus', () => {
  it('holds at least 70 secrets of different kinds', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(70);
    expect(new Set(CORPUS.map((entry) => entry.kind)).size).toBe(CORPUS.length);
  });
});

describe('stdio: server-everything and the SDK client through tapedeck record', () => {
  let trace: string;
  const echoText = (kind: number) => CORPUS[kind]!.text;

  /** Shapes that keep a secret's name apart from it: a header list, an env list, a form's fields. */
  const pairs = (secret: string, i: number): Record<string, unknown> => {
    const shapes = [
      {
        env: [
          { name: 'LOG_LEVEL', value: 'debug' },
          { name: 'DB_PASSWORD', value: secret },
        ],
      },
      { headers: [{ key: 'Authorization', value: secret }] },
      {
        headers: [
          ['Accept', 'application/json'],
          ['X-Api-Key', secret],
        ],
      },
      { parameters: [{ ParameterKey: 'ClientSecret', ParameterValue: secret }] },
      { tags: [{ Key: 'api_token', Value: secret }] },
      { form: { fields: [{ label: 'Password', type: 'password', value: secret }] } },
      { request: { rawHeaders: ['Host', 'api.example.com', 'Cookie', secret] } },
    ];
    return shapes[i % shapes.length]!;
  };

  beforeAll(async () => {
    trace = join(dir, 'everything');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TAPEDECK_BIN, 'record', '--out', trace, '--', process.execPath, EVERYTHING_SERVER, 'stdio'],
      env: env as Record<string, string>,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'corpus', version: '1.0.0' });
    await client.connect(transport);
    try {
      for (let i = 0; i < CORPUS.length; i += 1) {
        const echo = await client.callTool({ name: 'echo', arguments: { message: echoText(i) } });
        // The client gets what the server said, secrets and all.
        expect((echo.content as { text: string }[])[0]!.text).toBe(`Echo: ${echoText(i)}`);
        const missing = await client.callTool({ name: `tool ${echoText(i)}`, arguments: {} });
        expect(JSON.stringify(missing.content)).toContain(JSON.stringify(echoText(i)).slice(1, -1));
      }
      // The same secrets where only a name beside them says what they are, and numbers under secret names.
      for (let i = 0; i < CORPUS.length; i += 1) {
        await client.callTool({
          name: 'echo',
          arguments: { message: `pairs ${i}`, ...pairs(CORPUS[i]!.secret, i) },
        });
      }
      await client.callTool({ name: 'echo', arguments: { message: 'numbers', ...NUMBERS.arguments } });
      await client.callTool({ name: 'echo', arguments: { message: 'not secrets', ...NOT_SECRETS } });
    } finally {
      await client.close();
    }
  });

  it('hides a secret whose name sits beside it ({name, value}, [name, value], rawHeaders), and numbers under secret names', () => {
    const [file] = readdirSync(trace);
    const lines = readFileSync(join(trace, file!), 'utf8').trimEnd().split('\n');
    const requests = lines.filter((text) => text.includes('"dir":"in"'));
    judge('name/value pairs', CORPUS, requests.filter((text) => text.includes('"pairs ')).join('\n'));
    const numbers = requests.filter((text) => text.includes('"numbers"')).join('\n');
    outcome.set('numbers under secret names', {
      placed: NUMBERS.kinds,
      leaked: NUMBERS.kinds.filter((_, i) => numbers.includes(String(NUMBERS.values[i]))),
    });
    expect(numbers).not.toBe('');
    expect(outcome.get('name/value pairs')?.leaked).toEqual([]);
    expect(outcome.get('numbers under secret names')?.leaked).toEqual([]);
  });

  it('keeps what only sounds like a secret as it was sent', () => {
    const [file] = readdirSync(trace);
    const lines = readFileSync(join(trace, file!), 'utf8').trimEnd().split('\n');
    const sent = lines
      .map((text) => JSON.parse(text))
      .find((line) => line.raw?.params?.arguments?.message === 'not secrets');
    expect(sent.raw.params.arguments).toEqual({ message: 'not secrets', ...NOT_SECRETS });
  });

  it('hides every secret in arguments, results and error messages', () => {
    const [file] = readdirSync(trace);
    const lines = readFileSync(join(trace, file!), 'utf8').trimEnd().split('\n');
    const parsed = lines.map((text) => ({ text, line: JSON.parse(text) as Record<string, unknown> }));
    const requests = parsed.filter(({ line }) => line.dir === 'in');
    const answers = parsed.filter(({ line }) => line.dir === 'out');
    const isEcho = ({ line }: { line: Record<string, unknown> }) =>
      JSON.stringify(line.raw).includes('"text":"Echo: ');
    judge('arguments', CORPUS, requests.map(({ text }) => text).join('\n'));
    judge(
      'results',
      CORPUS,
      answers
        .filter(isEcho)
        .map(({ text }) => text)
        .join('\n'),
    );
    judge(
      'error messages',
      CORPUS,
      answers
        .filter((a) => !isEcho(a))
        .map(({ text }) => text)
        .join('\n'),
    );
    for (const placement of ['arguments', 'results', 'error messages'] as const) {
      expect(outcome.get(placement)?.leaked, placement).toEqual([]);
    }
  });

  it('leaves a cassette that still replays: every call answered from the recording', async () => {
    const [file] = readdirSync(trace);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TAPEDECK_BIN, 'replay', join(trace, file!)],
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'corpus', version: '1.0.0' });
    await client.connect(transport);
    try {
      for (let i = 0; i < CORPUS.length; i += 1) {
        const echo = await client.callTool({ name: 'echo', arguments: { message: echoText(i) } });
        expect(echo.isError, `${CORPUS[i]!.kind}: ${JSON.stringify(echo)}`).not.toBe(true);
        expect((echo.content as { text: string }[])[0]!.text.startsWith('Echo: ')).toBe(true);
      }
    } finally {
      await client.close();
    }
    expect(stderr).not.toContain('miss');
  });
});

interface Ran {
  stdout: Buffer;
  stderr: Buffer;
  code: number | null;
}

function runWith(command: string[], input: string, extraEnv: NodeJS.ProcessEnv): Promise<Ran> {
  const child: ChildProcess = spawn(command[0]!, command.slice(1), {
    env: { ...env, ...extraEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin!.on('error', () => {});
  child.stdin!.end(input);
  return new Promise((done) => {
    child.once('close', (code) => done({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  });
}

describe('stdio: a fixture server writing the corpus to stderr, its errors and its command line', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'corpus', version: '1' } },
  };
  const input = (calls: boolean) =>
    [
      initialize,
      ...(calls
        ? CORPUS.map((_, i) => ({
            jsonrpc: '2.0',
            id: i + 1,
            method: 'tools/call',
            params: { name: 'x', arguments: { i } },
          }))
        : []),
    ]
      .map((m) => `${JSON.stringify(m)}\n`)
      .join('');
  const server = (args: string[] = []) => [
    process.execPath,
    join(FIXTURE_SERVERS, 'corpus-echo.mjs'),
    ...args,
  ];

  async function recordMode(mode: string, args: string[] = []): Promise<string> {
    const out = join(dir, `fixture-${mode}`);
    const modeEnv = { CORPUS_FILE: join(dir, 'corpus.json'), CORPUS_MODE: mode };
    const calls = mode === 'errors';
    const direct = await runWith(server(args), input(calls), modeEnv);
    const proxied = await runWith(
      [process.execPath, TAPEDECK_BIN, 'record', '--quiet', '--out', out, '--', ...server(args)],
      input(calls),
      modeEnv,
    );
    // The client and the terminal get every byte as the server wrote it.
    expect(proxied.code).toBe(0);
    expect(proxied.stdout.equals(direct.stdout)).toBe(true);
    expect(proxied.stderr.equals(direct.stderr)).toBe(true);
    return folderText(out);
  }

  it.each([
    ['stderr-one', 'stderr, one write'],
    ['stderr-split', 'stderr, split write'],
    ['stderr-block', 'stderr, multi-line block'],
    ['errors', 'error messages'],
  ] as const)('%s: none reaches the trace', async (mode, placement) => {
    const text = await recordMode(mode);
    const name = placement === 'error messages' ? 'error messages' : placement;
    const before = outcome.get(name);
    judge(name, CORPUS, text);
    if (before !== undefined) {
      // Server errors (server-everything) and JSON-RPC errors (the fixture): one placement, both must hold.
      const leaked = [...new Set([...before.leaked, ...outcome.get(name)!.leaked])];
      outcome.set(name, { placed: before.placed, leaked });
    }
    expect(outcome.get(name)?.leaked).toEqual([]);
  });

  it('the command line, bare and --opt=: none reaches the trace, its file name or its label', async () => {
    const args = CORPUS.flatMap(({ text }) => [text, `--opt=${text}`]);
    const text = await recordMode('argv', args);
    const meta = JSON.parse(text.split('\n')[1]!) as { command: string[]; label: string };
    const command = meta.command.slice(2);
    const names = text.split('\n')[0]!;
    judge(
      'command line, bare',
      CORPUS,
      `${names}\n${meta.label}\n${command.filter((_, i) => i % 2 === 0).join('\n')}`,
    );
    judge('command line, --opt=', CORPUS, command.filter((_, i) => i % 2 === 1).join('\n'));
    // Nothing leaks elsewhere in the file either.
    judge('command line, bare', CORPUS, text);
    expect(outcome.get('command line, bare')?.leaked).toEqual([]);
    expect(outcome.get('command line, --opt=')?.leaked).toEqual([]);
  });
});

describe('HTTP: server-everything and the SDK client through tapedeck record --upstream', () => {
  let everything: RunningEverything;

  beforeAll(async () => {
    everything = await startEverything('streamableHttp');
  });
  afterAll(async () => {
    await everything?.stop();
  });

  async function recordHttp(
    name: string,
    requestFor: (batch: CorpusSecret[], offset: number) => { url: string; headers: Record<string, string> },
    entries: CorpusSecret[],
  ): Promise<string> {
    const file = join(dir, `${name}.jsonl`);
    const proxy = spawn(
      process.execPath,
      [
        TAPEDECK_BIN,
        'record',
        '--upstream',
        `${everything.origin}/mcp`,
        '--listen',
        '127.0.0.1:0',
        '--file',
        file,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    const exited = new Promise((resolve) => proxy.once('exit', resolve));
    const local = await new Promise<string>((resolve, reject) => {
      proxy.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        log += chunk;
        const match = /tapedeck: recording (http:\/\/\S+) → /.exec(log);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`record --upstream did not start: ${log}`)));
    });
    const base = local.replace(/\/mcp$/, '');
    for (let at = 0; at < entries.length; at += 12) {
      const batch = entries.slice(at, at + 12);
      const { url, headers } = requestFor(batch, at);
      const transport = new StreamableHTTPClientTransport(new URL(`${base}${url}`), {
        requestInit: { headers },
      });
      const client = new Client({ name: 'corpus', version: '1.0.0' });
      await client.connect(transport);
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
      expect((echo.content as { text: string }[])[0]!.text).toBe('Echo: hello');
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
    proxy.kill('SIGTERM');
    await exited;
    return readFileSync(file, 'utf8');
  }

  it('hides every secret sent in a header', async () => {
    const entries = CORPUS.filter((entry) => singleLine(entry.text));
    const text = await recordHttp(
      'http-headers',
      (batch, offset) => ({
        url: '/mcp',
        headers: Object.fromEntries(batch.map((entry, i) => [`x-corpus-${offset + i}`, entry.text])),
      }),
      entries,
    );
    judge('HTTP headers', entries, text);
    expect(outcome.get('HTTP headers')?.leaked).toEqual([]);
  });

  it('hides every secret percent-encoded in a query string under a name that says nothing', async () => {
    const entries = CORPUS.filter((entry) => singleLine(entry.text));
    const text = await recordHttp(
      'http-encoded',
      (batch, offset) => ({
        url: `/mcp?${batch.map((entry, i) => `q${offset + i}=${encodeURIComponent(entry.text)}`).join('&')}`,
        headers: {},
      }),
      entries,
    );
    judge('percent-encoded, under no name', entries, text);
    expect(outcome.get('percent-encoded, under no name')?.leaked).toEqual([]);
  });

  it('hides every secret percent-encoded in a Referer, Link or Content-Location header', async () => {
    const entries = CORPUS.filter((entry) => singleLine(entry.text));
    const headers = ['referer', 'link', 'content-location'] as const;
    const text = await recordHttp(
      'http-url-headers',
      (batch, offset) => ({
        url: '/mcp',
        headers: Object.fromEntries(
          headers.map((name, h) => {
            const mine = batch.filter((_, i) => (offset + i) % headers.length === h);
            const query = mine.map((entry, i) => `n${i}=${encodeURIComponent(entry.text)}`).join('&');
            const url = `https://app.example.com/page?${query}`;
            return [name, name === 'link' ? `<${url}>; rel="next"` : url];
          }),
        ),
      }),
      entries,
    );
    judge('Referer, Link and Content-Location', entries, text);
    expect(outcome.get('Referer, Link and Content-Location')?.leaked).toEqual([]);
  });

  it('hides every secret sent in a query string', async () => {
    const entries = CORPUS.filter((entry) => singleLine(entry.text));
    const text = await recordHttp(
      'http-query',
      (batch, offset) => ({
        url: `/mcp?${batch
          .flatMap((entry, i) => {
            const named = `secret_${offset + i}=${encodeURIComponent(entry.secret)}`;
            // A secret that needs no escaping in a URL also goes as it is, under a name that says nothing.
            const safe =
              encodeURIComponent(entry.text) === entry.text ? [`q${offset + i}=${entry.text}`] : [];
            return [named, ...safe];
          })
          .join('&')}`,
        headers: {},
      }),
      entries,
    );
    judge('HTTP query string', entries, text);
    expect(outcome.get('HTTP query string')?.leaked).toEqual([]);
  });
});
