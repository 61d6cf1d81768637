import { createHmac } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/trace/io.js';
import { useCliHarness } from '../helpers/cli.js';

const GITHUB = `ghp_${'A1b2C3d4E5f6G7h8I9j0'}${'K1l2M3n4O5p6Q7r8'}`;
const ANTHROPIC = 'sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa-xyzAA';
const API_KEY = 'plain-value-7Qx9Zt';
const SECRETS = [GITHUB, ANTHROPIC, API_KEY];

const io = useCliHarness('tapedeck-redact-');

const t = '2026-01-01T00:00:00.000Z';

/** A tapedeck trace recorded before redaction existed: secrets in the command, label, messages and io.stderr. */
function plantedLines(extra: Record<string, unknown> = {}): string[] {
  return [
    {
      v: 1,
      type: 'meta',
      startedAt: t,
      label: GITHUB,
      command: ['npx', GITHUB],
      producer: { name: 'tapedeck', version: '0.1.0' },
      traceId: 'tr-1',
      segment: 0,
      ...extra,
    },
    {
      t,
      seq: 1,
      dir: 'in',
      raw: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { apiKey: API_KEY } },
    },
    { t, seq: 2, type: 'stderr', text: `using ${ANTHROPIC}` },
    {
      t,
      seq: 3,
      dir: 'out',
      raw: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `token ${GITHUB}` }] } },
    },
    { t, type: 'end', durationMs: 5, reason: 'process_exit' },
  ].map((line) => JSON.stringify(line));
}

function planted(name = 'planted.jsonl', mode = 0o644): string {
  const path = join(io.dir, name);
  writeFileSync(path, `${plantedLines().join('\n')}\n`, { mode });
  chmodSync(path, mode);
  return path;
}

const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function expectNoSecrets(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('tapedeck redact', () => {
  it('writes the redacted trace to stdout as tapedeck JSONL, with the redaction summary in the meta', async () => {
    const input = planted();
    expect(await io.run(['redact', input])).toBe(0);
    expect(io.stderr).toBe('');
    expectNoSecrets(io.stdout);
    const [meta, call, err, result, end] = records(io.stdout);
    expect(meta).toMatchObject({
      type: 'meta',
      command: ['npx', '[REDACTED:github-token]'],
      // The label was derived from the command, so it is derived again from the redacted one.
      label: 'REDACTED',
      redaction: { defaults: true, customRules: 0, mode: 'marker' },
      traceId: 'tr-1',
    });
    expect(call).toMatchObject({ raw: { params: { apiKey: '[REDACTED:api-key]' } } });
    expect(err).toMatchObject({ type: 'stderr', text: 'using [REDACTED:anthropic-api-key]', redacted: true });
    expect(result).toMatchObject({
      raw: { result: { content: [{ text: 'token [REDACTED:github-token]' }] } },
    });
    expect(end).toMatchObject({ type: 'end', reason: 'process_exit' });
    // The input is left alone.
    expect(readFileSync(input, 'utf8')).toContain(GITHUB);
  });

  it('hides a label that was not derived from the command with the value rules', async () => {
    const input = join(io.dir, 'labelled.jsonl');
    const [meta, ...rest] = plantedLines({ label: `run-${GITHUB}`, command: ['node', 'server.js'] });
    writeFileSync(input, `${[meta, ...rest].join('\n')}\n`);
    expect(await io.run(['redact', input])).toBe(0);
    expect(records(io.stdout)[0]).toMatchObject({ label: 'run-[REDACTED:github-token]' });
  });

  it('-o writes a private file (0600, new folders 0700) and --redact adds a rule', async () => {
    const out = join(io.dir, 'new', 'shareable.jsonl');
    expect(
      await io.run(['redact', planted(), '-o', out, '--redact', 'region-[a-z]+', '--redact', 'using']),
    ).toBe(0);
    expect(io.stdout).toBe('');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(statSync(join(io.dir, 'new')).mode & 0o777).toBe(0o700);
    const lines = records(readFileSync(out, 'utf8'));
    expect(lines[0]).toMatchObject({ redaction: { defaults: true, customRules: 2, mode: 'marker' } });
    expect(lines[2]).toMatchObject({ text: '[REDACTED:regex] [REDACTED:anthropic-api-key]' });
  });

  it('--in-place replaces the trace atomically (a new file renamed over it), 0600, no temporary file left', async () => {
    const input = planted('in-place.jsonl', 0o644);
    const before = statSync(input);
    expect(await io.run(['redact', input, '--in-place'])).toBe(0);
    const after = statSync(input);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o600);
    expect(readdirSync(io.dir).filter((name) => !['xdg', 'home'].includes(name))).toEqual(['in-place.jsonl']);
    const text = readFileSync(input, 'utf8');
    expectNoSecrets(text);
    expect((await openTrace(input)).format).toBe('tapedeck');
    // Redacting again changes nothing: markers are never redacted twice.
    expect(await io.run(['redact', input, '--in-place'])).toBe(0);
    expect(readFileSync(input, 'utf8')).toBe(text);
  });

  it('--in-place keeps a failed run from touching the original', async () => {
    const input = planted('keep.jsonl');
    const original = readFileSync(input, 'utf8');
    expect(await io.run(['redact', input, '--in-place', '--redact-file', join(io.dir, 'missing.json')])).toBe(
      2,
    );
    expect(readFileSync(input, 'utf8')).toBe(original);
  });

  it('--in-place redacts every segment of a rotated trace, each keeping its own meta, so it still stitches', async () => {
    const [meta, call, err, result, end] = plantedLines();
    const second = JSON.stringify({ ...JSON.parse(meta!), segment: 1 });
    writeFileSync(join(io.dir, 'rot.1.jsonl'), `${meta}\n${call}\n${err}\n`);
    writeFileSync(join(io.dir, 'rot.jsonl'), `${second}\n${result}\n${end}\n`);
    expect(await io.run(['redact', join(io.dir, 'rot.jsonl'), '--in-place'])).toBe(0);
    // The older segment has no end line, as rotation leaves it: nothing to warn about.
    expect(io.stderr).toBe('');
    for (const name of ['rot.jsonl', 'rot.1.jsonl']) {
      const text = readFileSync(join(io.dir, name), 'utf8');
      expectNoSecrets(text);
      expect(statSync(join(io.dir, name)).mode & 0o777).toBe(0o600);
    }
    expect(records(readFileSync(join(io.dir, 'rot.jsonl'), 'utf8'))[0]).toMatchObject({ segment: 1 });
    const trace = await openTrace(join(io.dir, 'rot.1.jsonl'));
    expect(trace.segments.map((s) => s.segment)).toEqual([0, 1]);
    const seqs: number[] = [];
    for await (const { line } of trace.lines()) if (line.type !== 'end') seqs.push(line.seq!);
    expect(seqs).toEqual([1, 2, 3]);
  });

  it('keeps other formats: an mcporter recording comes out as mcporter NDJSON, unchanged lines byte for byte', async () => {
    const input = join(io.dir, 'session.ndjson');
    const fixture = readFileSync(
      fileURLToPath(new URL('../fixtures/interop/mcporter/everything-get-sum.ndjson', import.meta.url)),
      'utf8',
    );
    const lines = fixture.trimEnd().split('\n');
    // A call carrying secrets, in mcporter's own shape: `_meta` last, as mcporter writes it.
    const planted = {
      method: 'tools/call',
      params: { name: 'login', arguments: { apiKey: 'plain-value-8841', note: `push with ${GITHUB}` } },
      jsonrpc: '2.0',
      id: 9,
      _meta: { dir: 'send', server: 'everything', ts: '2026-11-29T20:51:27.000Z' },
    };
    writeFileSync(
      input,
      `${[...lines.slice(0, 3), JSON.stringify(planted), ...lines.slice(3)].join('\n')}\n`,
    );
    expect(await io.run(['redact', input])).toBe(0);
    const out = io.stdout.trimEnd().split('\n');
    expect(out).toHaveLength(lines.length + 1);
    expect([...out.slice(0, 3), ...out.slice(4)]).toEqual(lines);
    expect(JSON.parse(out[3]!)).toEqual({
      ...planted,
      params: {
        name: 'login',
        arguments: { apiKey: '[REDACTED:api-key]', note: 'push with [REDACTED:github-token]' },
      },
    });
    expect(Object.keys(JSON.parse(out[3]!))).toEqual(Object.keys(planted));
    expectNoSecrets(io.stdout);
  });

  it('hash mode: equal secrets get equal markers, keyed by a per-install key created 0600 in a 0700 folder', async () => {
    const input = planted();
    expect(await io.run(['redact', input, '--redact-mode', 'hash', '--redact', 'A1b2C3d4E5f6G7h8I9j0'])).toBe(
      0,
    );
    const keyPath = join(io.dir, 'home', 'redact.key');
    const key = readFileSync(keyPath);
    expect(key).toHaveLength(32);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(io.dir, 'home')).mode & 0o777).toBe(0o700);
    const hash = createHmac('sha256', key).update(GITHUB).digest('hex').slice(0, 12);
    const marker = `[REDACTED:github-token:${hash}]`;
    // In the command and in the result: one secret, one marker.
    expect(io.stdout.split(marker).length - 1).toBe(2);
    expectNoSecrets(io.stdout);
    const first = io.stdout;
    io.stdout = '';
    // A later run reads the same key: markers are stable across traces.
    expect(await io.run(['redact', input, '--redact-mode', 'hash', '--redact', 'A1b2C3d4E5f6G7h8I9j0'])).toBe(
      0,
    );
    expect(io.stdout).toBe(first);
    expect(readFileSync(keyPath)).toEqual(key);
  });

  it('a key file of the wrong size is an error naming it, and nothing is written', async () => {
    io.env.TAPEDECK_HOME = io.dir;
    writeFileSync(join(io.dir, 'redact.key'), 'short');
    const out = join(io.dir, 'out.jsonl');
    expect(await io.run(['redact', planted(), '--redact-mode', 'hash', '-o', out])).toBe(1);
    expect(io.stderr).toMatch(/redaction key .*redact\.key: it holds 5 bytes, expected 32; delete it/);
    expect(readdirSync(io.dir)).not.toContain('out.jsonl');
  });

  it('a key file that is a symbolic link is refused in one line, never read through, and nothing is written', async () => {
    io.env.TAPEDECK_HOME = io.dir;
    // A valid key elsewhere: following the link would work, which is what must not happen.
    const elsewhere = join(io.dir, 'planted.key');
    writeFileSync(elsewhere, Buffer.alloc(32, 7), { mode: 0o600 });
    symlinkSync(elsewhere, join(io.dir, 'redact.key'));
    const out = join(io.dir, 'out.jsonl');
    expect(await io.run(['redact', planted(), '--redact-mode', 'hash', '-o', out])).toBe(1);
    expect(io.stderr).toMatch(
      /^tapedeck: redaction key .*redact\.key: it is a symbolic link, and tapedeck does not follow links to its key; remove the link .*\n$/,
    );
    expect(io.stderr.split('\n')).toHaveLength(2);
    expect(existsSync(out)).toBe(false);
  });

  it('a dangling link where the key belongs is refused too, not written through', async () => {
    io.env.TAPEDECK_HOME = io.dir;
    const target = join(io.dir, 'target.key');
    symlinkSync(target, join(io.dir, 'redact.key'));
    expect(
      await io.run(['redact', planted(), '--redact-mode', 'hash', '-o', join(io.dir, 'out.jsonl')]),
    ).toBe(1);
    expect(io.stderr).toMatch(/redact\.key: it is a symbolic link/);
    expect(existsSync(target)).toBe(false);
  });

  it('-o and --in-place together are a usage error', async () => {
    expect(await io.run(['redact', planted(), '-o', join(io.dir, 'x.jsonl'), '--in-place'])).toBe(2);
    expect(io.stderr).toMatch(/^tapedeck: -o and --in-place cannot be used together; .*\n$/);
  });

  it('the rule flags are checked as for record: a bad regex or mode is a usage error', async () => {
    expect(await io.run(['redact', planted(), '--redact', '[z-a]'])).toBe(2);
    expect(io.stderr).toMatch(/^tapedeck: --redact '\[z-a\]' is not a valid regular expression: /);
    io.stderr = '';
    expect(await io.run(['redact', planted(), '--redact-mode', 'x'])).toBe(2);
    expect(io.stderr).toBe("tapedeck: --redact-mode must be one of marker, hash; got 'x'\n");
  });

  it('leaves corrupt lines out (they cannot be redacted), says so, and exits 1', async () => {
    const input = join(io.dir, 'broken.jsonl');
    const [meta, call] = plantedLines();
    writeFileSync(input, `${meta}\n${call}\n{"oops": "${GITHUB}\n`);
    expect(await io.run(['redact', input])).toBe(1);
    expectNoSecrets(io.stdout);
    expect(io.stderr).toMatch(/broken\.jsonl:3: not valid JSON/);
  });

  it('--in-place keeps a trace whose corrupt line would be lost for good as it was', async () => {
    const input = join(io.dir, 'broken.jsonl');
    const [meta, call] = plantedLines();
    writeFileSync(input, `${meta}\n{"oops"\n${call}\n`);
    const before = readFileSync(input);
    expect(await io.run(['redact', input, '--in-place'])).toBe(1);
    expect(io.stderr).toContain(
      `tapedeck: ${input} was not rewritten: its 1 corrupt line would be lost for good; write the redacted trace with -o FILE, or mend the line first\n`,
    );
    expect(readFileSync(input)).toEqual(before);
  });

  it('--in-place rewrites a file of another tool in its own format', async () => {
    const input = join(io.dir, 'session.ndjson');
    const fixture = new URL('../fixtures/interop/mcporter/everything-get-sum.ndjson', import.meta.url);
    const call = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'x', arguments: { token: 'tok-123456' } },
      _meta: { dir: 'send', server: 'everything', ts: '2026-11-29T20:51:27.000Z' },
    };
    writeFileSync(input, `${readFileSync(fixture, 'utf8')}${JSON.stringify(call)}\n`);
    expect(await io.run(['redact', input, '--in-place'])).toBe(0);
    expect(io.stderr).toBe('');
    const text = readFileSync(input, 'utf8');
    expect(text).not.toContain('tok-123456');
    expect(text).toContain('"token":"[REDACTED:token]"');
    expect(text.startsWith(readFileSync(fixture, 'utf8'))).toBe(true);
    expect(statSync(input).mode & 0o777).toBe(0o600);
  });

  it('redacts fields a message line carries beyond the format’s own', async () => {
    const input = join(io.dir, 'extra.jsonl');
    const [meta, call] = plantedLines();
    const extra = { ...JSON.parse(call!), seq: 5, note: `from ${GITHUB}`, secret: 'hunter2', conn: 'c-1' };
    writeFileSync(input, `${meta}\n${JSON.stringify(extra)}\n`);
    expect(await io.run(['redact', input])).toBe(0);
    expectNoSecrets(io.stdout);
    expect(io.stdout).not.toContain('hunter2');
    expect(records(io.stdout)[1]).toMatchObject({
      note: 'from [REDACTED:github-token]',
      secret: '[REDACTED:secret]',
      // Not a session id this trace showed (no Mcp-Session-Id header named it): kept.
      conn: 'c-1',
    });
  });

  it('--no-redact-defaults leaves only the custom rules', async () => {
    expect(
      await io.run(['redact', planted(), '--no-redact-defaults', '--redact', 'sk-ant-[\\w-]{1,256}']),
    ).toBe(0);
    expect(io.stdout).toContain(GITHUB);
    expect(io.stdout).not.toContain(ANTHROPIC);
    expect(records(io.stdout)[0]).toMatchObject({ redaction: { defaults: false, customRules: 1 } });
  });
});
