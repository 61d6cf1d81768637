/**
 * The spawn helper with real processes on this machine: on Linux it is the plain spawn (no shell: metacharacters
 * are plain bytes), kill() is routed through the stop plan (on a host that says it is Windows, through the tree
 * stop, with Node's kill as the fallback), and the SDK-shaped stdio transport serves an SDK Client with the real
 * server-everything.
 */
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import type { StopPlan } from '../../src/process/exit.js';
import { endTreeOnKill, NODE_HOST, type ProcessHost, spawnServer } from '../../src/process/spawn.js';
import { ServerStdioTransport } from '../../src/process/stdio-client.js';
import { EVERYTHING_SERVER } from '../helpers/peers.js';

function output(
  child: ChildProcess,
): Promise<{ stdout: string; code: number | null; signal: string | null }> {
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ stdout, code, signal })));
}

describe('spawnServer on this machine', () => {
  it('starts the command as given, without a shell: metacharacters reach the server as bytes', async () => {
    const args = [
      'a&b',
      '$(echo no)',
      '`id`',
      '%PATH%',
      '"quoted"',
      '',
      'two words',
      "it's",
      'C:\\dir\\',
      'Zoë',
    ];
    const child = spawnServer(
      process.execPath,
      ['-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...args],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const { stdout, code } = await output(child);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(args);
  });

  it('fails a missing command the way Node does, with ENOENT', async () => {
    const child = spawnServer('tapedeck-no-such-command', [], { stdio: 'ignore' });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => child.once('error', resolve));
    expect(error.code).toBe('ENOENT');
  });
});

describe('stopping through the plan', () => {
  // Started as a plain spawn on every machine (no stop plan of its own), so each test's host is the only one.
  const sleeper = () =>
    spawnServer(
      process.execPath,
      ['-e', 'setInterval(() => {}, 1000)'],
      { stdio: 'ignore' },
      { ...NODE_HOST, platform: 'linux' },
    );

  it('ends the tree on Windows with the planned taskkill, for any signal, and not with a signal of its own', async () => {
    const child = sleeper();
    await new Promise((resolve) => child.once('spawn', resolve));
    const plans: StopPlan[] = [];
    const windows: ProcessHost = {
      ...NODE_HOST,
      platform: 'win32',
      env: { SystemRoot: 'C:\\Windows' },
      runStop: (plan) => {
        plans.push(plan);
        // Standing in for taskkill: the process ends a moment later, by someone else's hand.
        setTimeout(() => process.kill(child.pid!, 'SIGKILL'), 50);
      },
    };
    endTreeOnKill(child, windows);
    const ended = output(child);
    expect(child.kill('SIGHUP')).toBe(true);
    expect(plans).toEqual([
      {
        kind: 'tree',
        file: 'C:\\Windows\\System32\\taskkill.exe',
        args: ['/PID', String(child.pid), '/T', '/F'],
      },
    ]);
    // No signal was sent by kill() itself: the process was still running when it returned.
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    await ended;
    expect(child.kill('SIGTERM')).toBe(false);
    expect(plans).toHaveLength(1);
  });

  it("falls back to Node's own kill when the tree stop cannot run", async () => {
    const child = sleeper();
    await new Promise((resolve) => child.once('spawn', resolve));
    endTreeOnKill(child, { ...NODE_HOST, platform: 'win32', runStop: (_plan, failed) => failed() });
    const ended = output(child);
    expect(child.kill('SIGTERM')).toBe(true);
    expect((await ended).signal).toBe('SIGKILL');
  });

  it('sends the signal itself on Linux and macOS', async () => {
    const child = sleeper();
    await new Promise((resolve) => child.once('spawn', resolve));
    endTreeOnKill(child, { ...NODE_HOST, platform: 'darwin', runStop: () => expect.unreachable() });
    const ended = output(child);
    expect(child.kill('SIGTERM')).toBe(true);
    expect((await ended).signal).toBe('SIGTERM');
  });
});

describe('ServerStdioTransport', () => {
  it('serves an SDK Client with the real server-everything, and stops it on close', async () => {
    const transport = new ServerStdioTransport({
      command: process.execPath,
      args: [EVERYTHING_SERVER, 'stdio'],
      env: { ...process.env },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'spawn-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid;
    expect(pid).toBeGreaterThan(0);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'a&b "c" %PATH%' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: a&b "c" %PATH%' }]);
    await client.close();
    expect(transport.pid).toBeUndefined();
    expect(() => process.kill(pid!, 0)).toThrow();
  });

  it('rejects start for a command that is not there', async () => {
    const transport = new ServerStdioTransport({
      command: 'tapedeck-no-such-server',
      env: {},
      stderr: 'ignore',
    });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await expect(transport.start()).rejects.toMatchObject({ code: 'ENOENT' });
    expect(errors).toHaveLength(1);
  });
});
