import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userRedactPath } from '../../src/base/paths.js';
import { loadRedactConfig, parseRedactFile } from '../../src/redact/config.js';
import { DEFAULT_RULES } from '../../src/redact/index.js';
import { displayWidth } from '../../src/trace/text-width.js';
import { useCliHarness } from '../helpers/cli.js';

const io = useCliHarness('tapedeck-redact-config-', { cwd: 'project' });
const project = (): string => join(io.dir, 'project');

function file(path: string, content: unknown): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const regex = (id: string) => ({ id, type: 'regex', pattern: `\\b${id.toUpperCase()}-[0-9]{4}\\b` });
const where = () => ({ env: io.env, cwd: project(), home: join(io.dir, 'home-dir') });

describe('redact config files', () => {
  it("loads mcp-tape's redact.json unchanged, keeping the built-in rules (extends defaults to 'default')", () => {
    const mcpTape = file(join(io.dir, 'redact.json'), {
      rules: [
        { type: 'path', path: '$..api_key' },
        { type: 'regex', pattern: '\\bAKIA[0-9A-Z]{16}\\b' },
      ],
    });
    const { config, files } = loadRedactConfig({ files: [mcpTape] }, where());
    expect(config).toEqual({
      defaults: true,
      mode: 'marker',
      rules: [
        { type: 'path', path: '$..api_key' },
        { type: 'regex', pattern: '\\bAKIA[0-9A-Z]{16}\\b' },
      ],
    });
    expect(files).toEqual([mcpTape]);
  });

  it('combines every source in order: user, project, TAPEDECK_REDACT, --redact-file, then --redact', () => {
    file(join(io.dir, 'xdg', 'tapedeck', 'redact.json'), { rules: [regex('user')] });
    file(join(project(), '.tapedeck', 'redact.json'), { rules: [regex('project')] });
    io.env.TAPEDECK_REDACT = file(join(io.dir, 'env.json'), { rules: [regex('env')] });
    const flagged = file(join(io.dir, 'flag.json'), { extends: 'default', rules: [regex('flag')] });
    const { config, files } = loadRedactConfig(
      { files: [flagged], patterns: ['CLI-[0-9]{4}'], mode: 'hash' },
      where(),
    );
    expect(config.rules.map((r) => r.id ?? (r.type === 'regex' ? r.pattern : ''))).toEqual([
      'user',
      'project',
      'env',
      'flag',
      'CLI-[0-9]{4}',
    ]);
    expect(config).toMatchObject({ defaults: true, mode: 'hash' });
    expect(files).toHaveLength(4);
  });

  it('turns the built-in rules off with --no-redact-defaults, and says so', () => {
    const loaded = loadRedactConfig({ defaults: false }, where());
    expect(loaded.config.defaults).toBe(false);
    expect(loaded.notice).toBe(
      'the built-in redaction rules are off (--no-redact-defaults): only your own rules hide secrets',
    );
    expect(loadRedactConfig({}, where()).notice).toBeUndefined();
  });

  it('turns them off with "extends": null in your own config or a --redact-file, and names the file', () => {
    const own = file(join(io.dir, 'xdg', 'tapedeck', 'redact.json'), {
      extends: null,
      rules: [regex('own')],
    });
    const byUser = loadRedactConfig({}, where());
    expect(byUser.config.defaults).toBe(false);
    expect(byUser.notice).toContain(`("extends": null in ${own})`);
    rmSync(own);
    const flagged = file(join(io.dir, 'flag.json'), { extends: null, rules: [regex('flag')] });
    expect(loadRedactConfig({ files: [flagged] }, where()).config.defaults).toBe(false);
  });

  it('does not let a project file or the TAPEDECK_REDACT file turn them off: their rules are added, and it is said', () => {
    const projectFile = file(join(project(), '.tapedeck', 'redact.json'), {
      extends: null,
      rules: [regex('only')],
    });
    const fromProject = loadRedactConfig({}, where());
    expect(fromProject.config.defaults).toBe(true);
    expect(fromProject.config.rules.map((rule) => rule.id)).toEqual(['only']);
    expect(fromProject.notice).toBe(
      `${projectFile} says "extends": null, but only your own config or --no-redact-defaults can turn the ` +
        'built-in redaction rules off: they stay on, and its rules are added',
    );
    rmSync(join(project(), '.tapedeck'), { recursive: true });
    io.env.TAPEDECK_REDACT = file(join(io.dir, 'env.json'), { extends: null, rules: [regex('env')] });
    const fromEnv = loadRedactConfig({}, where());
    expect(fromEnv.config.defaults).toBe(true);
    expect(fromEnv.notice).toContain('they stay on');
    // The same file named on the command line is the user's own choice.
    expect(loadRedactConfig({ files: [io.env.TAPEDECK_REDACT] }, where()).config.defaults).toBe(false);
  });

  it('respects XDG_CONFIG_HOME and falls back to ~/.config when it is unset or relative', () => {
    expect(userRedactPath({ XDG_CONFIG_HOME: '/x/cfg' }, '/home/me')).toBe('/x/cfg/tapedeck/redact.json');
    expect(userRedactPath({}, '/home/me')).toBe('/home/me/.config/tapedeck/redact.json');
    expect(userRedactPath({ XDG_CONFIG_HOME: 'relative' }, '/home/me')).toBe(
      '/home/me/.config/tapedeck/redact.json',
    );
  });

  it('reads the same file once even when two sources name it', () => {
    const shared = file(join(project(), '.tapedeck', 'redact.json'), { rules: [regex('once')] });
    io.env.TAPEDECK_REDACT = shared;
    expect(loadRedactConfig({ files: [shared] }, where()).config.rules).toHaveLength(1);
  });

  it('keeps every rule type and its options, and drops descriptions', () => {
    const parsed = parseRedactFile(
      JSON.stringify({
        $schema: 'https://example.invalid/redact.schema.json',
        rules: [
          { type: 'key', name: 'sessionId', exclude: ['sessionIdHint'], description: 'ours' },
          { type: 'header', name: 'x-acme', contains: true },
          { type: 'regex', id: 'acme', pattern: 'acme_[a-z]{8}', flags: 'i', hints: ['acme_'] },
          { type: 'pem' },
        ],
      }),
      'r.json',
    );
    expect(parsed.rules).toEqual([
      { type: 'key', name: 'sessionId', exclude: ['sessionIdHint'] },
      { type: 'header', name: 'x-acme', contains: true },
      { type: 'regex', id: 'acme', pattern: 'acme_[a-z]{8}', flags: 'i', hints: ['acme_'] },
      { type: 'pem' },
    ]);
  });
});

describe('a bad redaction setup stops record before anything starts', () => {
  it.each([
    ['bad JSON, with line and column', '{\n  "rules": [}\n', /not valid JSON at line 2, column 13/],
    ['bad JSON at the end', '{"rules": [', /not valid JSON at line 1, column 12: the file ends too early/],
    ['not an object', '[]', /expected a JSON object like \{"rules": \[\.\.\.\]\}; got an array/],
    [
      'an unknown top-level field',
      { rule: [] },
      /unknown field "rule"; a redact config has "extends" and "rules"/,
    ],
    ['a bad extends', { extends: 'strict' }, /"extends" must be "default" .* or null .*; got "strict"/],
    ['rules not a list', { rules: {} }, /"rules" must be an array; got an object/],
    [
      'an unknown type',
      { rules: [regex('ok'), { type: 'regexp', pattern: 'x' }] },
      /rules\[1\]: unknown type "regexp"; expected one of "key", "path", "regex", "header", "pem"/,
    ],
    ['a missing type', { rules: [{ pattern: 'x' }] }, /rules\[0\]: missing "type"/],
    ['a missing field', { rules: [{ type: 'path' }] }, /rules\[0\]: a path rule needs "path"/],
    [
      'a misspelled field',
      { rules: [{ type: 'regex', pattern: 'x', flag: 'i' }] },
      /rules\[0\]: unknown field "flag" for a regex rule; expected type, id, description, pattern, flags, hints/,
    ],
    [
      'a wrongly typed field',
      { rules: [{ type: 'header', name: 'x', contains: 'yes' }] },
      /"contains" must be a boolean/,
    ],
    ['a bad id', { rules: [{ type: 'pem', id: 'has space' }] }, /rules\[0\]: "id" must be/],
    [
      'an invalid regex',
      { rules: [regex('ok'), regex('ok2'), { type: 'regex', pattern: 'a(b' }] },
      /rules\[2\]: invalid regular expression "a\(b": .*Unterminated group/,
    ],
    ['an invalid regex flag', { rules: [{ type: 'regex', pattern: 'a', flags: 'q' }] }, /rules\[0\]: .*flag/],
    [
      'a pattern that can backtrack',
      { rules: [{ id: 'slow', type: 'regex', pattern: '(a+)+b' }] },
      /rules\[0\] \(slow\): pattern "\(a\+\)\+b" at position 2: "\+" has no upper bound/,
    ],
    [
      'a repeated group holding a quantifier',
      { rules: [{ type: 'regex', pattern: '(?:x[0-9]{1,3}){2,8}' }] },
      /rules\[0\]: pattern .* a quantifier inside a group repeated by "\{2,8\}" can backtrack exponentially/,
    ],
    [
      'a key rule that matches nothing',
      { rules: [{ type: 'key', name: 'token', exclude: ['token'] }] },
      /rules\[0\]: it matches nothing: "exclude" lists its own name "token"/,
    ],
    ['an unknown rule type', { rules: [{ type: 'cookie', name: 'x' }] }, /rules\[0\]: unknown type "cookie"/],
    [
      'an invalid JSONPath',
      { rules: [{ type: 'path', path: 'api_key' }] },
      /rules\[0\]: JSONPath "api_key" is malformed/,
    ],
  ])('%s: one line naming the file, exit 2, no trace, no server', async (_name, content, message) => {
    const config = file(join(io.dir, 'bad.json'), content);
    const out = join(io.dir, 'traces');
    const started = join(io.dir, 'started');
    const code = await io.run([
      'record',
      '--out',
      out,
      '--redact-file',
      config,
      '--',
      'sh',
      '-c',
      `touch ${started}`,
    ]);
    expect(code).toBe(2);
    expect(io.stderr).toMatch(message);
    expect(io.stderr).toContain(`redact config ${config}: `);
    expect(io.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(started)).toBe(false);
    expect(io.stdout).toBe('');
  });

  it.each([
    ['the user config', () => file(join(io.dir, 'xdg', 'tapedeck', 'redact.json'), '{oops')],
    ['the project config', () => file(join(project(), '.tapedeck', 'redact.json'), '{oops')],
    [
      'the TAPEDECK_REDACT file',
      () => {
        const path = file(join(io.dir, 'env.json'), '{oops');
        io.env.TAPEDECK_REDACT = path;
        return path;
      },
    ],
  ])('a malformed %s, found on its own, fails the same way', async (_name, make) => {
    const path = make();
    const out = join(io.dir, 'traces');
    expect(await io.run(['record', '--out', out, '--', 'sh', '-c', 'exit 0'])).toBe(2);
    expect(io.stderr).toMatch(new RegExp(`redact config ${path}: not valid JSON at line 1, column 2`));
    expect(existsSync(out)).toBe(false);
  });

  it('a --redact-file or TAPEDECK_REDACT file that does not exist is an error; missing automatic files are not', async () => {
    const out = join(io.dir, 'traces');
    const missing = join(io.dir, 'nope.json');
    expect(await io.run(['record', '--out', out, '--redact-file', missing, '--', 'true'])).toBe(2);
    expect(io.stderr).toContain(`redact config ${missing}: cannot read: no such file`);
    io.stderr = '';
    io.env.TAPEDECK_REDACT = missing;
    expect(await io.run(['record', '--out', out, '--', 'true'])).toBe(2);
    expect(io.stderr).toContain(`redact config ${missing}: cannot read: no such file`);
    expect(existsSync(out)).toBe(false);
  });

  it('--redact with an invalid regex is a usage error at parse time, naming the flag and the regex', async () => {
    expect(await io.run(['record', '--redact', 'ok-[0-9]+', '--redact', '(unclosed', '--', 'true'])).toBe(2);
    expect(io.stderr.trim()).toBe(
      "tapedeck: --redact '(unclosed' is not a valid regular expression: Unterminated group",
    );
  });

  it('--redact-mode with a bad value is a usage error listing the valid ones', async () => {
    expect(await io.run(['record', '--redact-mode', 'blur', '--', 'true'])).toBe(2);
    expect(io.stderr.trim()).toBe("tapedeck: --redact-mode must be one of marker, hash; got 'blur'");
  });
});

describe('tapedeck record --redact-defaults', () => {
  it('prints the built-in rules as a table (id, family, type, what) and exits 0 without a server command', async () => {
    io.env.COLUMNS = '200';
    expect(await io.run(['record', '--redact-defaults'])).toBe(0);
    const [header, ...rows] = io.stdout.split('\n');
    expect(header).toMatch(/^id\s+family\s+type\s+what$/);
    for (const rule of DEFAULT_RULES) expect(io.stdout).toContain(rule.id!);
    expect(rows.find((row) => row.startsWith('github-token '))).toMatch(
      /source\s+regex\s+\/\\b\(\?:gh\[pousr\]_/,
    );
    expect(rows.find((row) => row.startsWith('token '))).toMatch(
      /keys\s+key\s+keys named token \(not progressToken/,
    );
    expect(rows.find((row) => row.startsWith('mcp-session-id '))).toMatch(/kept as a stable hash/);
    expect(io.stdout).toContain(`${DEFAULT_RULES.length} built-in rules in 15 families`);
    expect(io.stdout).toMatch(/^ {2}cloud {10}AWS, Google Cloud, Azure and other clouds \(16\)$/m);
    expect(io.stderr).toBe('');
  });

  it('fits the table to 80 columns, wrapping what each rule hides and keeping every id whole', async () => {
    io.env.COLUMNS = '80';
    expect(await io.run(['record', '--redact-defaults'])).toBe(0);
    const table = io.stdout.slice(0, io.stdout.indexOf('\n\n'));
    for (const line of table.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(80);
    const ids = table.split('\n').map((line) => line.split(' ')[0]);
    for (const rule of DEFAULT_RULES) expect(ids).toContain(rule.id);
    expect(table).toMatch(/^token +keys +key +keys named token \(not\n +progressToken,\n +token_type\)$/m);
  });
});
