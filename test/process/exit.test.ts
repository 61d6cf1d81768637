/**
 * Stopping a server and reporting how it ended, per platform: a signal on Linux and macOS, the whole process tree
 * with taskkill on Windows; exit codes as each platform reports them.
 */
import { describe, expect, it } from 'vitest';
import { describeExit, exitCodeFor, planStop } from '../../src/process/exit.js';

describe('planning a stop', () => {
  it('sends the signal asked for on Linux and macOS', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'] as const)
        expect(planStop(platform, 4242, signal, {})).toEqual({ kind: 'signal', signal });
    }
  });

  it('ends the whole tree on Windows, forcibly, with taskkill by its absolute path, whatever the signal', () => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'] as const) {
      expect(planStop('win32', 4242, signal, { SystemRoot: 'C:\\WINDOWS' })).toEqual({
        kind: 'tree',
        file: 'C:\\WINDOWS\\System32\\taskkill.exe',
        args: ['/PID', '4242', '/T', '/F'],
      });
    }
    expect(planStop('win32', 7, 'SIGTERM', { systemroot: 'D:\\Win\\' })).toMatchObject({
      file: 'D:\\Win\\System32\\taskkill.exe',
    });
    expect(planStop('win32', 7, 'SIGTERM', {})).toMatchObject({
      file: 'C:\\Windows\\System32\\taskkill.exe',
    });
  });

  it('has nothing to stop when the process never started', () => {
    expect(planStop('win32', undefined, 'SIGTERM', {})).toEqual({ kind: 'none' });
    expect(planStop('linux', undefined, 'SIGTERM', {})).toEqual({ kind: 'none' });
  });
});

describe('exit codes', () => {
  it('passes a code on as it is, and a POSIX signal as 128 + its number', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      expect(exitCodeFor(platform, 0, null)).toBe(0);
      expect(exitCodeFor(platform, 3, null)).toBe(3);
      expect(exitCodeFor(platform, null, 'SIGTERM')).toBe(143);
      expect(exitCodeFor(platform, null, 'SIGKILL')).toBe(137);
      expect(exitCodeFor(platform, null, 'SIGINT')).toBe(130);
      expect(exitCodeFor(platform, null, 'SIGHUP')).toBe(129);
    }
    // The platform's own numbers win where they differ (SIGUSR1 is 10 on Linux, 30 on macOS).
    expect(exitCodeFor('darwin', null, 'SIGUSR1', { SIGUSR1: 30 })).toBe(158);
  });

  it('reports Windows exit codes as Windows does: NTSTATUS values whole, a stopped process as 1', () => {
    expect(exitCodeFor('win32', 3221225477, null)).toBe(3221225477);
    expect(exitCodeFor('win32', 3221225786, null)).toBe(3221225786);
    expect(exitCodeFor('win32', 1, null)).toBe(1);
    expect(exitCodeFor('win32', null, 'SIGTERM')).toBe(1);
    expect(exitCodeFor('win32', null, 'SIGKILL')).toBe(1);
  });

  it('says how a server ended in the words of its platform', () => {
    expect(describeExit('linux', null, 'SIGTERM')).toBe('ended by SIGTERM (exit code 143)');
    expect(describeExit('darwin', 2, null)).toBe('exit code 2');
    expect(describeExit('win32', 3221225477, null)).toBe(
      'exit code 3221225477 (0xC0000005: access violation)',
    );
    expect(describeExit('win32', 3221225786, null)).toBe(
      'exit code 3221225786 (0xC000013A: ended by Ctrl-C or Ctrl-Break)',
    );
    expect(describeExit('win32', 3221225473, null)).toBe('exit code 3221225473 (0xC0000001)');
    expect(describeExit('win32', null, 'SIGTERM')).toBe('ended by tapedeck (exit code 1)');
  });
});
