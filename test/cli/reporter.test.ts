import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReporters, reportPath } from '../../src/cli/flags/reporter.js';
import type { TraceLine } from '../../src/trace/types.js';
import { junitCases, junitProblems, parseAnnotations, parseXml } from '../helpers/ci-formats.js';
import { useCliHarness } from '../helpers/cli.js';
import { list, session, tool } from '../helpers/diff-sessions.js';

const io = useCliHarness('tapedeck-reporter-');
const FORMATS = { formats: ['junit', 'github', 'json'] as const };

function write(name: string, lines: TraceLine[]): string {
  const path = join(io.dir, name);
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return path;
}

const echo = (message: string) => tool('echo', { message }, `Echo: ${message}`);

function changedPair(): [string, string] {
  return [
    write('a.jsonl', session([list(['echo']), echo('hi')])),
    write('b.jsonl', session([list(['echo']), echo('bye')], { idBase: 50 })),
  ];
}

describe('--reporter values', () => {
  it('takes several reporters, each with or without a file', () => {
    expect(parseReporters(['junit:out/t.xml', 'github', 'json'], FORMATS)).toEqual({
      reporters: [
        { format: 'junit', file: 'out/t.xml' },
        { format: 'github', file: undefined },
        { format: 'json', file: undefined },
      ],
      replacesStdout: true,
    });
    expect(parseReporters(['github'], FORMATS).replacesStdout).toBe(false);
  });

  it('refuses what cannot work, in one line naming the value and what to change', () => {
    const refusal = (values: string[], stdoutTakenBy?: string) => {
      try {
        parseReporters(values, { ...FORMATS, stdoutTakenBy });
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refusal(['xml'])).toBe("--reporter must be junit[:FILE], github or json[:FILE]; got 'xml'");
    expect(refusal(['sarif'])).toBe("--reporter must be junit[:FILE], github or json[:FILE]; got 'sarif'");
    expect(refusal(['github:a.txt'])).toBe(
      "--reporter github takes no file: the runner reads annotations from the log; got 'github:a.txt'",
    );
    expect(refusal(['junit:'])).toBe("--reporter junit:FILE needs a file name after the colon; got 'junit:'");
    expect(refusal(['junit:r.xml', 'json:./r.xml'])).toMatch(/^--reporter names .*r\.xml twice/);
    expect(refusal(['json', 'junit'])).toBe(
      '--reporter json and --reporter junit would both write to stdout: give one a file, e.g. --reporter junit:tapedeck.xml',
    );
    expect(refusal(['junit'], '--json')).toBe(
      '--reporter junit and --json would both write to stdout: give the reporter a file, e.g. --reporter junit:tapedeck.xml',
    );
    expect(refusal(['json'], 'the MCP session')).toBe(
      '--reporter json needs a file here: stdout carries the MCP session; e.g. --reporter json:tapedeck.json',
    );
    expect(refusal(['github', 'junit:r.xml'], 'the MCP session')).toBe('accepted');
  });

  it('is a usage error (exit 2, one line) before anything is read', async () => {
    expect(await io.run(['diff', 'missing-a.jsonl', 'missing-b.jsonl', '--reporter', 'tap'])).toBe(2);
    expect(io.stderr).toBe("tapedeck: --reporter must be junit[:FILE], github or json[:FILE]; got 'tap'\n");
    io.stderr = '';
    expect(await io.run(['scan', 'missing.jsonl', '--reporter', 'sarif', '--format', 'sarif'])).toBe(2);
    expect(io.stderr).toMatch(/^tapedeck: --reporter sarif and --format sarif would both write to stdout/);
  });

  it('names paths inside the working folder relative to it, with forward slashes', () => {
    expect(reportPath('/repo/fixtures/s.jsonl', '/repo')).toBe('fixtures/s.jsonl');
    expect(reportPath('fixtures/s.jsonl', '/repo')).toBe('fixtures/s.jsonl');
    expect(reportPath('/elsewhere/s.jsonl', '/repo')).toBe('/elsewhere/s.jsonl');
  });
});

describe('reports from diff and scan', () => {
  it('writes JUnit to a file (0600) and annotations to stdout beside the usual diff', async () => {
    const [a, b] = changedPair();
    expect(await io.run(['diff', a, b, '--reporter', 'junit:reports/diff.xml', '--reporter', 'github'])).toBe(
      1,
    );
    const file = join(io.dir, 'reports', 'diff.xml');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const root = parseXml(readFileSync(file, 'utf8'));
    expect(junitProblems(root)).toEqual([]);
    expect(
      junitCases(root).map(({ testcase, outcome }) => [testcase.attributes.name, outcome?.name]),
    ).toEqual([
      ['#1 tools/list', undefined],
      ['#2 tools/call echo {"message":"hi"}', 'failure'],
    ]);
    // The usual report is still there, and the annotation lines follow it.
    expect(io.stdout).toContain('~ #2     tools/call echo {"message":"hi"}');
    const annotations = parseAnnotations(io.stdout.slice(io.stdout.indexOf('::error')));
    expect(annotations).toEqual([
      expect.objectContaining({ properties: expect.objectContaining({ file: 'a.jsonl', line: '4' }) }),
    ]);
  });

  it('puts a document reporter on stdout in place of the usual report, annotations then on stderr', async () => {
    const [a, b] = changedPair();
    expect(await io.run(['diff', a, b, '--reporter', 'json', '--reporter', 'github'])).toBe(1);
    const document = JSON.parse(io.stdout);
    expect(document).toMatchObject({ command: 'diff', ok: false, counts: { tests: 2, failures: 1 } });
    expect(parseAnnotations(io.stderr)).toHaveLength(1);
  });

  it('never writes a report through a symbolic link in its place: refused before the run, exit 2', async () => {
    const [a, b] = changedPair();
    mkdirSync(join(io.dir, 'reports'));
    const target = join(io.dir, 'target.txt');
    writeFileSync(target, 'keep me');
    symlinkSync(target, join(io.dir, 'reports', 'diff.xml'));
    expect(await io.run(['diff', a, b, '--reporter', 'junit:reports/diff.xml'])).toBe(2);
    expect(io.stderr).toBe(
      'tapedeck: --reporter junit:reports/diff.xml is a symbolic link: tapedeck neither writes through a link nor replaces it; name the file it points to, or another path\n',
    );
    expect(io.stdout).toBe('');
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('scan: SARIF on stdout with --format sarif, and a passing JUnit case for a clean trace', async () => {
    const clean = write('clean.jsonl', session([echo('hi')]));
    expect(await io.run(['scan', clean, '--format', 'sarif', '--reporter', 'junit:scan.xml'])).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({ version: '2.1.0', runs: [{ results: [] }] });
    const cases = junitCases(parseXml(readFileSync(join(io.dir, 'scan.xml'), 'utf8')));
    expect(cases.map(({ testcase, outcome }) => [testcase.attributes.name, outcome])).toEqual([
      ['no secrets found in 3 lines', undefined],
    ]);
  });
});
