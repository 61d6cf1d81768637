/**
 * What tapedeck writes about traffic besides the trace — verify's report in every format, replay's misses and
 * reports, fault notices, diff and show — holds no secret. The server is the SDK fixture `secret-answers.mjs`,
 * whose answers carry secrets of many kinds in many placements (the reference servers answer with none); the
 * client is the official SDK client. The cassette is recorded raw (`--no-redact-defaults`, as a fixture someone
 * committed unredacted would be) with one set of secrets, and the live server answers with another, so every
 * secret differs and every difference is reported: both sets must stay out of everything written.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { junitCases, parseAnnotations, parseXml } from '../helpers/ci-formats.js';
import { EVERYTHING_SERVER, makeTempDir, removeTempDir, TAPEDECK_BIN } from '../helpers/peers.js';
import { fixtureServer, spawnTapedeck } from '../helpers/proxy.js';
import { b64, chars, digits, hex } from '../redact/fabricate.js';
import { fragments } from './corpus/secrets.js';

/** One set of secrets, every value fabricated here. */
function secretSet(): Record<string, string | number> {
  const word = () => `${chars(6)}${digits(3)}!${chars(5)}`;
  return {
    github: `ghp_${chars(36)}`,
    anthropic: `sk-ant-api03-${chars(93)}AA`,
    openai: `sk-proj-${chars(64)}T3BlbkFJ${chars(20)}`,
    stripe: `sk_live_${chars(24)}`,
    slack: `xoxb-${digits(10)}-${digits(13)}-${chars(24)}`,
    jwt: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ${chars(20)}.${chars(43)}`,
    googleKey: `AIza${chars(35)}`,
    password: word(),
    pin: Number(digits(6)),
    otp: Number(digits(6)),
    apiKey: `ak-${chars(14)}`,
    clientSecret: word(),
    dbPassword: word(),
    cookie: chars(28),
    awsKeyId: `AKIA${chars(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`,
    awsSecret: b64(40),
    sentryKey: hex(32),
    sasSig: `${b64(40)}+/=`,
    pem: `-----BEGIN PRIVATE KEY-----\n${b64(64)}\n${b64(64)}\n${b64(24)}==\n-----END PRIVATE KEY-----`,
    envFile: `NODE_ENV=production\nOPENAI_API_KEY=sk-proj-${chars(64)}T3BlbkFJ${chars(20)}\n`,
    csrf: chars(24),
  };
}

const RECORDED = secretSet();
const LIVE = secretSet();

/** What must never be written: each secret as it is, percent-encoded, and as the base64 the server sends. */
function forbidden(set: Record<string, string | number>): string[] {
  const out: string[] = [];
  for (const [kind, value] of Object.entries(set)) {
    const text = String(value);
    if (typeof value === 'number') out.push(text);
    else out.push(...fragments(text), ...fragments(encodeURIComponent(text)));
    if (kind === 'envFile') out.push(...fragments(Buffer.from(text).toString('base64')));
  }
  return out;
}
const FORBIDDEN = [...forbidden(RECORDED), ...forbidden(LIVE)];

/** The secrets found in `text`, as fragments (empty when it holds none). */
function leaks(text: string): string[] {
  return FORBIDDEN.filter((fragment) => text.includes(fragment));
}

let dir: string;
let cassette: string;
let redacted: string;
const secretsFile = (name: string) => join(dir, `${name}.json`);
const server = (set: 'recorded' | 'live') =>
  fixtureServer('secret-answers.mjs', '--secrets', secretsFile(set));

/** A resource URI that carries a token and a signature, as signed download links do. */
const tokenUri = (set: Record<string, string | number>) =>
  `https://files.example.com/q3.pdf?token=${set.github}&sig=${encodeURIComponent(String(set.sasSig))}`;

/** Drives a session as a client would: the tool list, every group of secrets, a failing call. */
async function session(command: string[]): Promise<void> {
  const client = new Client({ name: 'tapedeck-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: command[0]!, args: command.slice(1), stderr: 'ignore' }),
  );
  try {
    await client.listTools();
    for (const group of ['tokens', 'named', 'urls', 'blobs']) {
      await client.callTool({ name: 'secrets', arguments: { group } });
    }
    await client.callTool({ name: 'fail', arguments: {} });
    await client.readResource({ uri: tokenUri(RECORDED) });
  } finally {
    await client.close();
  }
}

const record = (file: string, flags: string[]) =>
  session([process.execPath, TAPEDECK_BIN, 'record', ...flags, '--file', file, '--', ...server('recorded')]);

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-output-redaction-');
  writeFileSync(secretsFile('recorded'), JSON.stringify(RECORDED));
  writeFileSync(secretsFile('live'), JSON.stringify(LIVE));
  cassette = join(dir, 'raw.jsonl');
  redacted = join(dir, 'redacted.jsonl');
  await record(cassette, ['--no-redact-defaults']);
  await record(redacted, []);
  // The raw cassette really holds the secrets the reports must not show.
  expect(leaks(readFileSync(cassette, 'utf8')).length).toBeGreaterThan(20);
});

afterAll(() => removeTempDir(dir));

const verify = (flags: string[]) =>
  spawnTapedeck(['verify', cassette, ...flags, '--', ...server('live')], { cwd: dir }).done;

describe('tapedeck verify against a server whose answers carry secrets', () => {
  it('prints every divergence with the secrets hidden, on both sides', async () => {
    const result = await verify([]);
    const stdout = result.stdout.toString();
    expect(result.code).toBe(1);
    expect(stdout).toMatch(/verified 8 exchanges: 3 match, 5 differ/);
    expect(stdout).toContain('recorded "[REDACTED:github-token]"');
    expect(stdout).toContain('$.result.structuredContent.user.pin_code');
    expect(leaks(stdout + result.stderr)).toEqual([]);
  });

  it('--json: the diff entries hold markers, not values', async () => {
    const result = await verify(['--json']);
    const report = JSON.parse(result.stdout.toString());
    const entries = report.exchanges.flatMap((x: { diff?: { entries: unknown[] } }) => x.diff?.entries ?? []);
    expect(entries.length).toBeGreaterThan(20);
    expect(entries).toContainEqual({
      path: '$.result.structuredContent.user.otp',
      recorded: '[REDACTED:otp]',
      live: '[REDACTED:otp]',
    });
    expect(leaks(result.stdout.toString() + result.stderr)).toEqual([]);
  });

  it('--reporter junit, json and github: no report holds a secret', async () => {
    const result = await verify([
      '--reporter',
      'junit:verify.xml',
      '--reporter',
      'json:verify.json',
      '--reporter',
      'github',
    ]);
    expect(result.code).toBe(1);
    const junit = readFileSync(join(dir, 'verify.xml'), 'utf8');
    const json = readFileSync(join(dir, 'verify.json'), 'utf8');
    const stdout = result.stdout.toString();
    const failed = junitCases(parseXml(junit)).filter((c) => c.outcome?.name === 'failure');
    expect(failed).toHaveLength(5);
    expect(JSON.parse(json).counts).toMatchObject({ tests: 8, failures: 5 });
    const workflow = stdout.split('\n').filter((line) => line.startsWith('::'));
    const annotations = parseAnnotations(`${workflow.join('\n')}\n`);
    expect(annotations.filter((a) => a.level === 'error')).toHaveLength(5);
    expect(annotations.map((a) => a.message).join('\n')).toContain('[REDACTED:password]');
    for (const [name, text] of [
      ['junit', junit],
      ['json', json],
      ['github and text', stdout],
      ['stderr', result.stderr],
    ]) {
      expect(leaks(text!), name).toEqual([]);
    }
  });
});

describe('tapedeck replay: misses and fault notices', () => {
  /** Replays `file` to an SDK client that reads a URI carrying a token and calls a tool with secret arguments. */
  async function replayWith(file: string, flags: string[]) {
    const client = new Client({ name: 'tapedeck-e2e', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TAPEDECK_BIN, 'replay', file, ...flags],
      cwd: dir,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await client.connect(transport);
    const errors: string[] = [];
    await client.readResource({ uri: tokenUri(LIVE) }).catch((err: Error) => errors.push(err.message));
    await client
      .callTool({
        name: 'secrets',
        arguments: {
          group: 'tokens',
          apiKey: LIVE.apiKey,
          password: LIVE.password,
          note: `key ${LIVE.stripe}`,
        },
      })
      .catch((err: Error) => errors.push(err.message));
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { stderr, errors };
  }

  it('a miss is reported with the request redacted, on stderr and in every report', async () => {
    const { stderr, errors } = await replayWith(redacted, [
      '--reporter',
      'junit:replay.xml',
      '--reporter',
      'json:replay.json',
      '--reporter',
      'github',
    ]);
    expect(stderr).toMatch(
      /tapedeck: miss: no recorded answer for tools\/call secrets \{"apiKey":"\[REDACTED:api-key\]"/,
    );
    const junit = readFileSync(join(dir, 'replay.xml'), 'utf8');
    const json = readFileSync(join(dir, 'replay.json'), 'utf8');
    expect(junitCases(parseXml(junit)).some((c) => c.testcase.attributes.name?.startsWith('miss 1:'))).toBe(
      true,
    );
    for (const [name, text] of [
      ['stderr', stderr],
      ['junit', junit],
      ['json', json],
    ]) {
      expect(leaks(text!), name).toEqual([]);
    }
    // The client, which sent the secrets, hears of its miss without them echoed back either.
    expect(leaks(errors.join('\n'))).toEqual([]);
  });

  it('an injected fault names the resource it spoiled with its token hidden, as does a miss on a raw cassette', async () => {
    const faulted = await replayWith(redacted, ['--fault', 'error@resources/read', '--allow-unused']);
    expect(faulted.stderr).toMatch(
      /tapedeck: injected error -32603 on resources\/read https:\/\/files\.example\.com\/q3\.pdf\?token=\[REDACTED:github-token\]&sig=\[REDACTED:/,
    );
    expect(leaks(faulted.stderr)).toEqual([]);
    const raw = await replayWith(cassette, ['--allow-unused']);
    expect(raw.stderr).toContain('miss: no recorded answer for resources/read');
    expect(leaks(raw.stderr)).toEqual([]);
  });
});

describe('the recorder and the readers', () => {
  it('record --fault says which request it spoiled with the secrets in its URI hidden', async () => {
    const file = join(dir, 'faulted.jsonl');
    const client = new Client({ name: 'tapedeck-e2e', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        TAPEDECK_BIN,
        'record',
        '--fault',
        'error@resources/read',
        '--file',
        file,
        '--',
        process.execPath,
        EVERYTHING_SERVER,
        'stdio',
      ],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await client.connect(transport);
    await client
      .readResource({
        uri: `demo://resource/static/document/a.md?access_token=${encodeURIComponent(String(LIVE.github))}`,
      })
      .catch(() => {});
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stderr).toMatch(
      /tapedeck: injected error -32603 on resources\/read demo:\/\/\S+access_token=\[REDACTED:/,
    );
    expect(leaks(stderr + readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('diff, show and stats of a raw trace print nothing it should have hidden', async () => {
    const runs = await Promise.all([
      spawnTapedeck(['diff', cassette, redacted], { cwd: dir }).done,
      spawnTapedeck(['diff', cassette, redacted, '--json'], { cwd: dir }).done,
      spawnTapedeck(['show', cassette], { cwd: dir }).done,
      spawnTapedeck(['show', '--raw', cassette], { cwd: dir }).done,
      spawnTapedeck(['stats', cassette, '--json'], { cwd: dir }).done,
    ]);
    for (const run of runs) expect(leaks(run.stdout.toString() + run.stderr)).toEqual([]);
    expect(runs[2]!.stdout.toString()).toContain('[REDACTED:github-token]');
  });
});
