/**
 * On Windows itself: a server behind a `.cmd` shim (as npx, pnpm and yarn are) found by its bare name through PATH
 * and PATHEXT, started through cmd.exe with every argument intact, stopped with its whole process tree, and
 * recorded by `tapedeck record` as a client would start it. Everywhere else these are skipped (they need cmd.exe);
 * the decisions behind them are tested on every platform in cmd-line.test.ts and plan.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverExitCode, spawnServer } from '../../src/process/spawn.js';
import { EVERYTHING_SERVER, TAPEDECK_BIN } from '../helpers/peers.js';

const WINDOWS = process.platform === 'win32';
if (!WINDOWS) console.warn('tapedeck: the Windows process tests are skipped here: they need cmd.exe');

/** Shims written the way npm writes them: the program by path, the script beside the shim, then `%*`. */
const shim = (script: string) => `@echo off\r\n"${process.execPath}" "%~dp0\\${script}" %*\r\n`;

function collect(
  child: ChildProcess,
): Promise<{ stdout: string; code: number | null; signal: string | null }> {
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ stdout, code, signal })));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!WINDOWS)('a server behind a .cmd shim, on Windows', () => {
  let dir: string;
  let bin: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-win-'));
    // A folder name cmd.exe would misread if the shim's own path were not escaped.
    bin = join(dir, 'tools (x86) & co');
    mkdirSync(bin);
    writeFileSync(join(bin, 'argv.js'), 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
    writeFileSync(join(bin, 'echo-args.cmd'), shim('argv.js'));
    writeFileSync(
      join(bin, 'tree-server.js'),
      "const { spawn } = require('node:child_process');\n" +
        "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });\n" +
        'process.stdout.write(String(child.pid) + "\\n");\nsetInterval(() => {}, 1000);\n',
    );
    writeFileSync(join(bin, 'tree-server.cmd'), shim('tree-server.js'));
    writeFileSync(
      join(bin, 'everything.cmd'),
      `@echo off\r\n"${process.execPath}" "${EVERYTHING_SERVER}" %*\r\n`,
    );
    // One PATH variable (Windows spells it Path; a second spelling would leave which one wins to chance).
    const path = Object.entries(process.env).find(([key]) => key.toUpperCase() === 'PATH')?.[1] ?? '';
    env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.toUpperCase() !== 'PATH'));
    env.PATH = `${bin};${path}`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds it by its bare name and passes every argument through cmd.exe unchanged', async () => {
    const args = [
      '-y',
      'a&b',
      'a|b',
      '<in>',
      '(x)',
      '^',
      '%PATH%',
      '!USERNAME!',
      'say "hi"',
      'a"&echo INJECTED&"',
      '',
      ' ',
      'C:\\dir\\',
      'two words',
      'a;b,c=d',
      'Zoë 日本語',
    ];
    const child = spawnServer('echo-args', args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const { stdout, code } = await collect(child);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(args);
  });

  it('ends the whole tree when stopped, and reports exit code 1 as Windows does', async () => {
    const child = spawnServer('tree-server', [], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const ended = collect(child);
    const grandchild = await new Promise<number>((resolve) => {
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\n')) resolve(Number.parseInt(text, 10));
      });
    });
    expect(alive(grandchild)).toBe(true);
    expect(child.kill('SIGTERM')).toBe(true);
    const { code, signal } = await ended;
    expect(serverExitCode(code, signal as NodeJS.Signals | null)).toBe(1);
    for (let i = 0; i < 50 && alive(grandchild); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(grandchild)).toBe(false);
  });

  it('is recorded by tapedeck record, started as an MCP client starts it', async () => {
    const trace = join(dir, 'everything.jsonl');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TAPEDECK_BIN, 'record', '--file', trace, '--', 'everything', 'stdio'],
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'windows-test', version: '1.0.0' });
    await client.connect(transport);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'a&b %PATH%' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: a&b %PATH%' }]);
    await client.close();
    const lines = readFileSync(trace, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'meta', transport: 'stdio' });
    expect(lines.join('\n')).toContain('"tools/call"');
  });
});
