/**
 * The pieces of install one by one: per-OS paths, command lookup, what counts as remote, TOML values, text edits
 * and the dry-run diff.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { remoteArgs, resolveExecutable } from '../../src/install/command.js';
import { classifyEntry } from '../../src/install/entry.js';
import { claudeDesktopPath, parseTargets, TARGET_IDS } from '../../src/install/targets.js';
import { applyTextEdits, positionOf, unifiedDiff } from '../../src/install/text.js';
import { scanValue } from '../../src/install/toml-config.js';

describe('install pieces', () => {
  it('finds Claude Desktop where each OS keeps it', () => {
    expect(claudeDesktopPath({ home: '/Users/me', cwd: '/', platform: 'darwin' })).toBe(
      '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(claudeDesktopPath({ home: '/home/me', cwd: '/', platform: 'linux' })).toBe(
      '/home/me/.config/Claude/claude_desktop_config.json',
    );
    expect(
      claudeDesktopPath({
        home: 'C:\\Users\\me',
        cwd: '/',
        platform: 'win32',
        appData: 'C:\\Users\\me\\AppData\\Roaming',
      }),
    ).toContain('claude_desktop_config.json');
    expect(parseTargets(undefined)).toEqual(TARGET_IDS);
    expect(parseTargets(' Cursor , codex,cursor')).toEqual(['cursor', 'codex']);
  });

  it('looks bare commands up on PATH, with PATHEXT on Windows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-path-'));
    try {
      mkdirSync(join(dir, 'a'));
      writeFileSync(join(dir, 'a', 'npx'), '', { mode: 0o644 }); // not executable: skipped
      mkdirSync(join(dir, 'b'));
      writeFileSync(join(dir, 'b', 'npx'), '', { mode: 0o755 });
      const path = `${join(dir, 'a')}:${join(dir, 'b')}`;
      expect(resolveExecutable('npx', { PATH: path }, 'linux')).toBe(join(dir, 'b', 'npx'));
      expect(resolveExecutable('./server.js', { PATH: path }, 'linux')).toBe('./server.js');
      expect(resolveExecutable('missing', { PATH: path }, 'linux')).toBeUndefined();
      // Windows, with its files given: `npx` is the `.cmd` shim, never the Git Bash script beside it.
      const files = new Set(['c:\\program files\\nodejs\\npx', 'c:\\program files\\nodejs\\npx.cmd']);
      const onDisk = (p: string) => files.has(p.toLowerCase());
      const env = { Path: 'C:\\Windows;C:\\Program Files\\nodejs', PATHEXT: '.EXE;.CMD' };
      expect(resolveExecutable('npx', env, 'win32', onDisk)).toBe('C:\\Program Files\\nodejs\\npx.cmd');
      expect(resolveExecutable('C:\\tools\\server.exe', env, 'win32', onDisk)).toBe('C:\\tools\\server.exe');
      expect(resolveExecutable('uvx', env, 'win32', onDisk)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells stdio from remote servers, and SSE from Streamable HTTP, per client', () => {
    expect(classifyEntry({ command: 'npx', args: ['-y', 'x'] }, 'type', undefined)).toEqual({
      kind: 'stdio',
      command: 'npx',
      args: ['-y', 'x'],
    });
    const remote = (entry: unknown, style: 'type' | 'gemini' = 'type') => {
      const kind = classifyEntry(entry, style, undefined);
      return kind.kind === 'remote' ? kind.remote.transport : kind.kind;
    };
    expect(remote({ type: 'sse', url: 'https://a/x' })).toBe('sse');
    expect(remote({ type: 'http', url: 'https://a/sse' })).toBe('streamable');
    expect(remote({ url: 'https://a/sse' })).toBe('sse');
    expect(remote({ serverUrl: 'https://a/mcp' })).toBe('streamable');
    expect(remote({ url: 'http://localhost:8080/events' }, 'gemini')).toBe('sse');
    expect(remote({ httpUrl: 'http://localhost:3000/mcp' }, 'gemini')).toBe('streamable');
    expect(classifyEntry({ command: 'tapedeck', args: ['record', '--', 'x'] }, 'type', undefined).kind).toBe(
      'by-hand',
    );
    expect(classifyEntry({ command: 'npx', args: [1] }, 'type', undefined)).toEqual({
      kind: 'invalid',
      why: 'its args are not all strings',
    });
    expect(
      remoteArgs({ command: 'node', prefix: ['/t/bin.js'] }, 'r', {
        url: 'https://a/sse',
        transport: 'sse',
        headers: { 'X-Key': 'k' },
      }),
    ).toEqual([
      '/t/bin.js',
      'record',
      '--upstream',
      'https://a/sse',
      '--stdio',
      '--sse',
      '--header',
      'X-Key: k',
      '--label',
      'r',
    ]);
  });

  it('leaves alone a server already recorded through npx and this package, as docs/mcp-and-install.md suggests writing it', () => {
    const kind = (command: string, args: string[]) =>
      classifyEntry({ command, args }, 'type', undefined).kind;
    expect(kind('npx', ['-y', 'mcp-tapedeck', 'record', '--', 'uvx', 'mcp-server-time'])).toBe('by-hand');
    expect(kind('npx', ['--yes', 'mcp-tapedeck@0.1.0', 'record', '--', 'x'])).toBe('by-hand');
    expect(kind('/usr/local/bin/npx', ['mcp-tapedeck', 'record', '--', 'x'])).toBe('by-hand');
    expect(kind('C:\\Program Files\\nodejs\\npx.cmd', ['-y', 'mcp-tapedeck', 'record', '--', 'x'])).toBe(
      'by-hand',
    );
    expect(kind('npx', ['-y', '-p', 'mcp-tapedeck', 'tapedeck', 'record', '--', 'x'])).toBe('by-hand');
    expect(kind('npx', ['--package=mcp-tapedeck@latest', 'tapedeck', 'record', '--', 'x'])).toBe('by-hand');
    // Another command of the package, another package, or tapedeck's name without the package: wrapped as usual.
    expect(kind('npx', ['-y', 'mcp-tapedeck', 'replay', 'c.jsonl'])).toBe('stdio');
    expect(kind('npx', ['-y', 'mcp-tapedeck-other', 'record', '--', 'x'])).toBe('stdio');
    expect(kind('npx', ['-y', 'tapedeck', 'record', '--', 'x'])).toBe('stdio');
    expect(kind('npx', ['-y', '@modelcontextprotocol/server-everything'])).toBe('stdio');
  });

  it('finds where TOML values end, strings, arrays and comments included', () => {
    const text = 'a = "x\\"y" # c\nb = [\n  "1", # one\n  \'2\',\n]\nc = """multi\nline"""\nd = 12 # n\n';
    const end = (key: string) => {
      const start = text.indexOf(`${key} = `) + 4;
      return text.slice(start, scanValue(text, start));
    };
    expect(end('a')).toBe('"x\\"y"');
    expect(end('b')).toBe('[\n  "1", # one\n  \'2\',\n]');
    expect(end('c')).toBe('"""multi\nline"""');
    expect(end('d')).toBe('12');
  });

  it('splices text and diffs it', () => {
    expect(
      applyTextEdits('ab', [
        { offset: 1, length: 0, text: 'X' },
        { offset: 1, length: 0, text: 'Y' },
      ]),
    ).toBe('aXYb');
    expect(positionOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(unifiedDiff('a\nb\nc\n', 'a\nB\nc\n', 'f')).toBe(
      '--- f\n+++ f (tapedeck)\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n',
    );
    expect(unifiedDiff('same\n', 'same\n', 'f')).toBe('');
  });
});
