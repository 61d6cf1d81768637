/**
 * Redaction through the real recorder: a server that leaks secrets in a result, an error, a log notification,
 * stderr, a banner and its own argv. The client must get every byte unchanged; no file in the trace folder — names
 * included — may hold a secret; hash mode must give one secret one marker; a bad redaction setup must stop the
 * recorder before it creates a file or starts the server.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_SERVERS,
  makeTempDir,
  type Parsed,
  readTrace,
  removeTempDir,
  TAPEDECK_BIN,
} from '../helpers/proxy.js';

const GITHUB = `ghp_${'Zq4Rt8Wm2Np6Ks0Lx3Vb'}${'7Hc1Jd5Fg9Ty2Ue4'}`;
const ANTHROPIC = `sk-ant-api03-${'Pz8Ow7Ni6Mu5Ly4Kx3Jw2Iv1Hu0'}-Gt9Fs8Er7Dq6`;
const JWT = `eyJhbGciOiJIUzI1NiJ9.${'eyJzdWIiOiJyZWRhY3Rpb24tZTJlIn0'}.${'bm90LWEtcmVhbC1zaWduYXR1cmU'}`;
const API_KEY = 'value-only-its-key-gives-away-4417';
const SECRETS = [GITHUB, ANTHROPIC, JWT, API_KEY];

/** What the client sends: an ordinary call, one that fails, and one carrying a secret of the client's own. */
const INPUT = Buffer.from(
  [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { note: 'hi' } } },
    { jsonrpc: '2.0', id: 2, method: 'fail' },
    {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'login', arguments: { apiKey: API_KEY } },
    },
  ]
    .map((m) => `${JSON.stringify(m)}\n`)
    .join(''),
);

let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-redaction-');
  env = {
    ...process.env,
    // Never the real home: user config, key and traces all live in the temp folder.
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    TAPEDECK_HOME: join(dir, 'home'),
    SECRET_ECHO_ANTHROPIC: ANTHROPIC,
    SECRET_ECHO_JWT: JWT,
    SECRET_ECHO_API_KEY: API_KEY,
  };
  delete env.TAPEDECK_REDACT;
  delete env.TAPEDECK_DIR;
});
afterAll(async () => {
  await removeTempDir(dir);
});

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a process in `cwd`, feeds it INPUT and closes its stdin. */
function runWithInput(cwd: string, command: string[]): Promise<Ran> {
  const child = spawn(command[0]!, command.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => {});
  child.stdin.end(INPUT);
  return new Promise((done) => {
    child.once('close', (code) =>
      done({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

const server = (script = join(FIXTURE_SERVERS, 'secret-echo.mjs')) => [
  process.execPath,
  script,
  '--token',
  GITHUB,
];
const record = (cwd: string, out: string, extra: string[], script?: string) =>
  runWithInput(cwd, [
    process.execPath,
    TAPEDECK_BIN,
    'record',
    '--out',
    out,
    ...extra,
    '--',
    ...server(script),
  ]);

/** A fresh working folder (for the project config) and trace folder. */
function folders(name: string): { cwd: string; out: string } {
  const cwd = join(dir, name);
  mkdirSync(cwd, { recursive: true });
  return { cwd, out: join(cwd, 'traces') };
}

function onlyTrace(out: string): string {
  const files = readdirSync(out);
  expect(files).toHaveLength(1);
  return join(out, files[0]!);
}

describe('recording a server that leaks secrets', () => {
  let direct: Ran;
  let proxied: Ran;
  let out: string;
  let lines: Parsed[];

  beforeAll(async () => {
    const where = folders('marker');
    out = where.out;
    direct = await runWithInput(where.cwd, server());
    proxied = await record(where.cwd, out, []);
    lines = readTrace(onlyTrace(out));
  });

  it('forwards every byte to the client unchanged, secrets included', () => {
    expect(proxied.code).toBe(0);
    expect(direct.code).toBe(0);
    expect(proxied.stdout.equals(direct.stdout)).toBe(true);
    const text = proxied.stdout.toString('utf8');
    for (const secret of SECRETS) expect(text).toContain(secret);
    // The server's stderr still reaches the terminal as it was.
    expect(proxied.stderr).toContain(GITHUB);
    expect(proxied.stderr).toContain(JWT);
  });

  it('keeps every secret out of every file in the trace folder, names and bytes', () => {
    const names = readdirSync(out);
    expect(names).toEqual([expect.stringMatching(/^\d{8}T\d{6}\.\d{3}Z-secret-echo\.jsonl$/)]);
    for (const name of names) {
      const bytes = readFileSync(join(out, name));
      for (const secret of SECRETS) {
        expect(name).not.toContain(secret);
        expect(bytes.includes(secret)).toBe(false);
      }
    }
  });

  it('hides each one with a marker naming its rule, everywhere it showed up', () => {
    const [meta] = lines;
    expect(meta).toMatchObject({
      type: 'meta',
      label: 'secret-echo',
      command: [
        process.execPath,
        expect.stringMatching(/secret-echo\.mjs$/),
        '--token',
        '[REDACTED:github-token]',
      ],
      redaction: { defaults: true, customRules: 0, mode: 'marker' },
    });
    const find = (predicate: (line: Parsed) => boolean) => lines.filter(predicate);
    const texts = find((l) => l.type === 'text' || l.type === 'stderr').map((l) => l.text);
    expect(texts).toEqual([
      'secret-echo ready; token [REDACTED:github-token]',
      'secret-echo: starting with --token [REDACTED:github-token]',
      'secret-echo: upstream Authorization: Bearer [REDACTED:jwt]',
      'secret-echo: anthropic key [REDACTED:anthropic-api-key]',
    ]);
    const out = find((l) => l.dir === 'out' && l.type === undefined).map(
      (l) => l.raw as Record<string, unknown>,
    );
    expect(out).toContainEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [
          {
            type: 'text',
            text: 'token=[REDACTED:github-token] anthropic=[REDACTED:anthropic-api-key] jwt=[REDACTED:jwt]',
          },
        ],
        config: { apiKey: '[REDACTED:api-key]', region: 'eu-west-1' },
        echo: { name: 'echo', arguments: { note: 'hi' } },
      },
    });
    expect(out).toContainEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32001,
        message: 'upstream rejected token [REDACTED:github-token]',
        data: { apiKey: '[REDACTED:api-key]' },
      },
    });
    const sent = find((l) => l.dir === 'in').map((l) => l.raw);
    expect(sent[2]).toMatchObject({ params: { arguments: { apiKey: '[REDACTED:api-key]' } } });
  });

  it('leaves a trace that tapedeck scan passes', async () => {
    const scan = await runWithInput(dir, [process.execPath, TAPEDECK_BIN, 'scan', onlyTrace(out)]);
    expect(scan.stdout.toString()).toMatch(/^no secrets found/);
    expect(scan.code).toBe(0);
  });
});

describe('a token in the command never reaches the file name', () => {
  it('derives the label from the redacted command', async () => {
    const { cwd, out } = folders('argv');
    // `node …/<token>/server.mjs`: the folder name is what a label would be derived from.
    mkdirSync(join(cwd, GITHUB));
    const script = join(cwd, GITHUB, 'server.mjs');
    copyFileSync(join(FIXTURE_SERVERS, 'secret-echo.mjs'), script);
    const ran = await record(cwd, out, [], script);
    expect(ran.code).toBe(0);
    const file = onlyTrace(out);
    expect(file).toMatch(/-REDACTED\.jsonl$/);
    expect(readFileSync(file).includes(GITHUB)).toBe(false);
    expect(readTrace(file)[0]).toMatchObject({ label: 'REDACTED' });
  });
});

describe('hash mode through record', () => {
  it('gives one secret one marker, in every place and across recordings, keyed per install', async () => {
    const { cwd, out } = folders('hash');
    const first = await record(cwd, join(out, 'a'), ['--redact-mode', 'hash']);
    const second = await record(cwd, join(out, 'b'), ['--redact-mode', 'hash']);
    expect([first.code, second.code]).toEqual([0, 0]);
    const keyPath = join(dir, 'home', 'redact.key');
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'home')).mode & 0o777).toBe(0o700);
    const hex = createHmac('sha256', readFileSync(keyPath)).update(GITHUB).digest('hex').slice(0, 12);
    const [a, b] = [onlyTrace(join(out, 'a')), onlyTrace(join(out, 'b'))].map((f) => readFileSync(f, 'utf8'));
    for (const text of [a!, b!]) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
      // The command line, banner, stderr, two results and an error: the same value, the same marker.
      expect(text.split(`[REDACTED:github-token:${hex}]`).length - 1).toBe(6);
      expect(text).toContain(`"--token","[REDACTED:github-token:${hex}]"`);
      expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ redaction: { mode: 'hash' } });
    }
    const markers = (text: string) =>
      [...text.matchAll(/\[REDACTED:[\w.-]+:[0-9a-f]{12}\]/g)].map((m) => m[0]).sort();
    expect(markers(a!)).toEqual(markers(b!));
  });
});

describe('where the rules come from', () => {
  it('auto-loads the project config and records only a summary of it in the meta', async () => {
    const { cwd, out } = folders('project');
    mkdirSync(join(cwd, '.tapedeck'));
    writeFileSync(
      join(cwd, '.tapedeck', 'redact.json'),
      JSON.stringify({ rules: [{ id: 'region', type: 'regex', pattern: '\\beu-west-\\d\\b' }] }),
    );
    const ran = await record(cwd, out, ['--redact', 'sk-ant-[\\w-]+']);
    expect(ran.code).toBe(0);
    const text = readFileSync(onlyTrace(out), 'utf8');
    const meta = JSON.parse(text.split('\n')[0]!);
    expect(meta.redaction).toEqual({ defaults: true, customRules: 2, mode: 'marker' });
    expect(text).not.toContain('eu-west-1');
    expect(text).toContain('"region":"[REDACTED:region]"');
    expect(text).not.toContain(ANTHROPIC);
    expect(text).not.toContain('\\beu-west');
    expect(text).not.toContain(GITHUB);
  });

  // A cloned repository brings its working folder along: its config may add rules, never take the built-in ones away.
  it('a project config saying "extends": null adds its rules and keeps the built-in ones, saying so in one line', async () => {
    const { cwd, out } = folders('project-null');
    mkdirSync(join(cwd, '.tapedeck'));
    writeFileSync(
      join(cwd, '.tapedeck', 'redact.json'),
      JSON.stringify({
        extends: null,
        rules: [{ id: 'region', type: 'regex', pattern: '\\beu-west-\\d\\b' }],
      }),
    );
    const ran = await record(cwd, out, []);
    expect(ran.code).toBe(0);
    const text = readFileSync(onlyTrace(out), 'utf8');
    expect(JSON.parse(text.split('\n')[0]!).redaction).toEqual({
      defaults: true,
      customRules: 1,
      mode: 'marker',
    });
    for (const secret of [GITHUB, ANTHROPIC, JWT, 'eu-west-1']) expect(text).not.toContain(secret);
    const said = ran.stderr.split('\n').filter((line) => line.includes('"extends": null'));
    expect(said).toEqual([
      `tapedeck: ${join(cwd, '.tapedeck', 'redact.json')} says "extends": null, but only your own config or ` +
        '--no-redact-defaults can turn the built-in redaction rules off: they stay on, and its rules are added',
    ]);
  });

  it('--no-redact-defaults turns the built-in rules off, and says so on stderr', async () => {
    const { cwd, out } = folders('no-defaults');
    const ran = await record(cwd, out, ['--no-redact-defaults']);
    expect(ran.code).toBe(0);
    expect(readFileSync(onlyTrace(out), 'utf8')).toContain(GITHUB);
    expect(ran.stderr).toContain(
      'tapedeck: the built-in redaction rules are off (--no-redact-defaults): only your own rules hide secrets\n',
    );
  });

  // The server itself may already be running and be passed the client's first bytes (record starts it and relays
  // before loading the recording code, to answer sooner); a bad setup stops it and records nothing.
  it('a bad setup exits 2 with one line, and no trace file exists', async () => {
    const { cwd, out } = folders('bad');
    const bad = join(cwd, 'bad.json');
    writeFileSync(bad, JSON.stringify({ rules: [{ type: 'path', path: '$..ok' }, { type: 'regex' }] }));
    const ran = await runWithInput(cwd, [
      process.execPath,
      TAPEDECK_BIN,
      'record',
      '--out',
      out,
      '--redact-file',
      bad,
      '--',
      'sh',
      '-c',
      'cat > /dev/null',
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(`tapedeck: redact config ${bad}: rules[1]: a regex rule needs "pattern"\n`);
    expect(ran.stdout.length).toBe(0);
    expect(existsSync(out)).toBe(false);
  });
});
