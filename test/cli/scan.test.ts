import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';

const GITHUB = `ghp_${'A1b2C3d4E5f6G7h8I9j0'}${'K1l2M3n4O5p6Q7r8'}`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0YXBlZGVjayJ9.c2lnbmF0dXJlLXZhbHVl';
const API_KEY = 'plain-value-7Qx9Zt';
const RANDOM = 'q8Zr2LmX7vTn4KpW9cYs3HdB6fJg';

const io = useCliHarness('tapedeck-scan-', { env: { NO_COLOR: '1' } });

const t = '2026-01-01T00:00:00.000Z';
const meta = (extra: Record<string, unknown> = {}) => ({
  v: 1,
  type: 'meta',
  startedAt: t,
  label: 'fixture',
  command: ['node', 'server.js'],
  producer: { name: 'tapedeck', version: '0.1.0' },
  ...extra,
});
const ping = { t, seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } };
const pong = { t, seq: 2, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: {} } };
const end = { t, type: 'end', durationMs: 1, reason: 'process_exit' };

function trace(name: string, lines: unknown[]): string {
  const path = join(io.dir, name);
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return path;
}

/** Secrets planted in a message (by value and by key), a stderr line and the command. */
function planted(): string {
  return trace('planted.jsonl', [
    meta({ command: ['node', 'server.js', '--token', GITHUB] }),
    ping,
    { t, seq: 2, type: 'stderr', text: `auth: Bearer ${JWT}` },
    {
      t,
      seq: 3,
      dir: 'out',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: `your token is ${GITHUB}` }], config: { apiKey: API_KEY } },
      },
    },
    end,
  ]);
}

describe('tapedeck scan: what it cannot read is not clean', () => {
  it('counts a cut-off last line, which it could not check, and exits 1', async () => {
    const path = join(io.dir, 'cut.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify(meta())}\n${JSON.stringify(ping)}\n{"t":"${t}","seq":2,"dir":"out","raw":{"token":"${GITHUB}`,
    );
    expect(await io.run(['scan', path])).toBe(1);
    expect(io.stderr).toContain('last line is cut off');
    expect(io.stdout).toContain('1 corrupt line could not be checked');
  });

  it('looks at lines of a type it does not know too: readers skip them, but they are in the file', async () => {
    const path = trace('future.jsonl', [
      meta(),
      ping,
      { t, seq: 2, type: 'future-thing', note: `uses ${GITHUB}` },
      end,
    ]);
    expect(await io.run(['scan', path])).toBe(1);
    expect(io.stdout).toMatch(/^\s+3\s+note\s+github-token\s+ghp_…\(40\)$/m);
  });

  it('reads a trace from standard input (-) whole, and suggests -o rather than --in-place', async () => {
    const path = planted();
    expect(await io.run(['scan', '-'], Readable.from([readFileSync(path)]))).toBe(1);
    expect(io.stdout).toContain('in 3 of 5 lines of -');
    expect(io.stdout).toContain('Hide them with: tapedeck redact - -o redacted.jsonl');
  });
});

describe('tapedeck scan', () => {
  it('finds planted secrets: line, JSON path, rule and a masked preview; exits 1', async () => {
    const path = planted();
    expect(await io.run(['scan', path])).toBe(1);
    expect(io.stderr).toBe('');
    const rows = io.stdout.split('\n');
    expect(rows[0]).toMatch(/^line\s+path\s+rule\s+preview$/);
    expect(io.stdout).toMatch(/^\s+1\s+command\[3\]\s+github-token\s+ghp_…\(40\)$/m);
    expect(io.stdout).toMatch(/^\s+3\s+text\s+jwt\s+eyJh…\(\d+\)$/m);
    expect(io.stdout).toMatch(/^\s+4\s+\$\.result\.content\[0\]\.text\s+github-token\s+ghp_…\(40\)$/m);
    expect(io.stdout).toMatch(/^\s+4\s+\$\.result\.config\.apiKey\s+api-key\s+plai…\(18\)$/m);
    expect(io.stdout).toMatch(/possible secrets in 3 of 5 lines of .*planted\.jsonl/);
    expect(io.stdout).toContain(`Hide them with: tapedeck redact ${path} --in-place`);
    // The report itself must not leak what it found.
    for (const secret of [GITHUB, JWT, API_KEY]) expect(io.stdout).not.toContain(secret);
  });

  it('--json prints the same findings as a stable document', async () => {
    const path = planted();
    expect(await io.run(['scan', path, '--json'])).toBe(1);
    const report = JSON.parse(io.stdout);
    expect(report).toMatchObject({ version: 1, trace: path, format: 'tapedeck', lines: 5, unreadable: 0 });
    const apiKey = report.findings.find((f: { path: string }) => f.path === '$.result.config.apiKey');
    expect(apiKey).toEqual({
      file: path,
      line: 4,
      path: '$.result.config.apiKey',
      rule: 'api-key',
      preview: 'plai…(18)',
      column: expect.any(Number),
    });
    // The column is where the value starts in its line (1-based), for code scanning to point at.
    const line4 = readFileSync(path, 'utf8').split('\n')[3]!;
    expect(line4.slice(apiKey.column - 1).startsWith('plai')).toBe(true);
    expect(line4[apiKey.column - 2]).toBe('"');
    expect(report.findings.map((f: { line: number }) => f.line)).toEqual([1, 3, 4, 4]);
    // Every finding has its column, the meta line's too.
    const lines = readFileSync(path, 'utf8').split('\n');
    for (const finding of report.findings as { line: number; column: number; preview: string }[]) {
      const shown = finding.preview.slice(0, finding.preview.indexOf('…'));
      expect(lines[finding.line - 1]!.slice(finding.column - 1).startsWith(shown)).toBe(true);
    }
  });

  it('gives the column of a password in every place it turns up, lines of unknown types too', async () => {
    const path = trace('passwords.jsonl', [
      meta({ command: ['node', 'server.js', '--password', 'hunter2'] }),
      { t, seq: 1, type: 'stderr', text: 'connecting with password=abc123 to db' },
      { t, seq: 2, type: 'future-kind', note: 'pwd: s3cr3t' },
      end,
    ]);
    expect(await io.run(['scan', path, '--json'])).toBe(1);
    const findings = JSON.parse(io.stdout).findings as { line: number; column?: number; rule: string }[];
    expect(findings.map((f) => [f.line, f.rule, typeof f.column])).toEqual([
      [1, 'password', 'number'],
      [2, 'password', 'number'],
      [3, 'pwd', 'number'],
    ]);
  });

  it('counts what it could not look inside, and still calls the trace clean', async () => {
    // JSON nested past 200 levels is searched without being walked key by key.
    let deep: Json = 'x';
    for (let i = 0; i < 250; i += 1) deep = [deep];
    const big = { t, seq: 3, dir: 'out', raw: { jsonrpc: '2.0', id: 2, result: { deep } } };
    const path = trace('big.jsonl', [meta(), ping, pong, big, end]);
    expect(await io.run(['scan', path])).toBe(0);
    expect(io.stdout).toContain('no secrets found in 5 lines');
    expect(io.stdout).toContain('1 value could not be looked inside (their text was checked):');
    expect(io.stdout).toMatch(/line 4 \$\.result\.deep(\[0\])+: JSON nested deeper than 200 levels/);
  });

  it('looks inside a file sent as base64 however long it is, and finds the token in it', async () => {
    const token = `ghp_${'Zq4Rt8Wm2Np6Ks0Lx3Vb'}${'7Hc1Jd5Fg9Ty2Ue4'}`;
    const text = `${'lorem ipsum dolor sit amet\n'.repeat(60_000)}GITHUB_TOKEN=${token}\n`;
    const blob = Buffer.from(text).toString('base64');
    const big = { t, seq: 3, dir: 'out', raw: { jsonrpc: '2.0', id: 2, result: { blob } } };
    const path = trace('big.jsonl', [meta(), ping, pong, big, end]);
    expect(await io.run(['scan', path, '--json'])).toBe(1);
    const report = JSON.parse(io.stdout.slice(io.stdout.indexOf('{')));
    expect(report.findings).toMatchObject([{ line: 4, path: '$.result.blob', rule: 'github-token' }]);
    expect(report.unchecked).toEqual([]);
  });

  it('is clean (exit 0) on a trace with nothing secret', async () => {
    const path = trace('clean.jsonl', [meta(), ping, pong, end]);
    expect(await io.run(['scan', path])).toBe(0);
    expect(io.stdout).toBe(`no secrets found in 4 lines of ${path}\n`);
    expect(await io.run(['scan', path, '--json'])).toBe(0);
  });

  it('finds nothing in a redacted trace: redact, then scan, is clean', async () => {
    const path = planted();
    const out = join(io.dir, 'redacted.jsonl');
    expect(await io.run(['redact', path, '-o', out])).toBe(0);
    io.stdout = '';
    expect(await io.run(['scan', out])).toBe(0);
    expect(io.stdout).toMatch(/^no secrets found in 5 lines of/);
  });

  it('a hash-mode redacted trace is clean too (hash markers are not mistaken for random secrets)', async () => {
    const out = join(io.dir, 'hashed.jsonl');
    expect(await io.run(['redact', planted(), '--redact-mode', 'hash', '-o', out])).toBe(0);
    io.stdout = '';
    expect(await io.run(['scan', out])).toBe(0);
  });

  it('reports random-looking strings no rule covers as guesses, with advice that fits', async () => {
    const path = trace('random.jsonl', [
      meta(),
      { t, seq: 1, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: { session: RANDOM } } },
      end,
    ]);
    expect(await io.run(['scan', path])).toBe(1);
    expect(io.stdout).toMatch(/^\s+2\s+\$\.result\.session\s+entropy\s+q8Zr…\(28\)$/m);
    expect(io.stdout).toMatch(/1 is a guess .*hide with tapedeck redact --redact <regex>; otherwise ignore/);
    expect(io.stdout).not.toContain('Hide them with');
    // A rule of one's own makes it go away.
    const out = join(io.dir, 'fixed.jsonl');
    expect(await io.run(['redact', path, '--redact', RANDOM, '-o', out])).toBe(0);
    expect(await io.run(['scan', out])).toBe(0);
  });

  it('checks file names and labels with the rules', async () => {
    const path = trace(`run-${GITHUB}.jsonl`, [meta({ label: `run-${GITHUB}` }), ping, pong, end]);
    expect(await io.run(['scan', path, '--json'])).toBe(1);
    const { findings } = JSON.parse(io.stdout);
    // The report names the file as it names everything from a trace: with the token hidden.
    const named = path.replace(GITHUB, '[REDACTED:github-token]');
    expect(findings).toEqual([
      { file: named, line: 0, path: '(file name)', rule: 'github-token', preview: 'ghp_…(40)' },
      {
        file: named,
        line: 1,
        path: 'label',
        rule: 'github-token',
        preview: 'ghp_…(40)',
        column: readFileSync(path, 'utf8').indexOf(GITHUB) + 1,
      },
    ]);
    expect(io.stdout + io.stderr).not.toContain(GITHUB);
  });

  it('uses the custom rules in force: config files and --redact', async () => {
    const path = trace('acme.jsonl', [
      meta(),
      { t, seq: 1, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: { text: 'order ACME-12345678' } } },
      end,
    ]);
    expect(await io.run(['scan', path])).toBe(0);
    expect(await io.run(['scan', path, '--redact', 'ACME-[0-9]{8}'])).toBe(1);
    io.stdout = '';
    writeFileSync(
      join(io.dir, 'project.json'),
      JSON.stringify({ rules: [{ id: 'acme', type: 'regex', pattern: 'ACME-\\d{8}' }] }),
    );
    io.env.TAPEDECK_REDACT = join(io.dir, 'project.json');
    expect(await io.run(['scan', path])).toBe(1);
    expect(io.stdout).toMatch(/\$\.result\.text\s+acme\s+ACM…\(13\)/);
  });

  it('exits 1 when a corrupt line could not be checked, and says so', async () => {
    const path = join(io.dir, 'corrupt.jsonl');
    writeFileSync(path, `${JSON.stringify(meta())}\n${JSON.stringify(ping)}\nGARBAGE ${GITHUB}\n`);
    expect(await io.run(['scan', path])).toBe(1);
    expect(io.stderr).toMatch(/corrupt\.jsonl:3: not valid JSON/);
    expect(io.stdout).toMatch(
      /no secrets found in the 2 lines of .* that could be read\n1 corrupt line could not be checked\n$/,
    );
  });

  it('fails with exit 1 and one line for a missing file, exit 2 for a bad flag', async () => {
    expect(await io.run(['scan', join(io.dir, 'missing.jsonl')])).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: no such trace file: .*missing\.jsonl\n$/);
    expect(await io.run(['scan', planted(), '--redact', '(('])).toBe(2);
  });
});
