import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, vi } from 'vitest';

/** What an in-process CLI test sees: a fresh folder and everything the command wrote. */
export interface CliHarness {
  dir: string;
  stdout: string;
  stderr: string;
}

export interface CliHarnessOptions {
  /** Point the user config, the install key and $TAPEDECK_REDACT away from the real home (default true). */
  isolateHome?: boolean;
  /** A subfolder of `dir` to use as the working directory (default: `dir` itself, when isolating). */
  cwd?: string;
  env?: Record<string, string | undefined>;
}

/**
 * Installs beforeEach/afterEach hooks for tests that call `run([...])` in-process: a temp folder, stdout and stderr
 * captured as strings, and (by default) a home of its own so no test reads or writes the real `~/.tapedeck`.
 *
 * @example const io = useCliHarness('tapedeck-scan-'); it('…', async () => { await run(['scan', f]); io.stdout; });
 */
export function useCliHarness(prefix: string, options: CliHarnessOptions = {}): CliHarness {
  const io: CliHarness = { dir: '', stdout: '', stderr: '' };
  beforeEach(() => {
    io.dir = mkdtempSync(join(tmpdir(), prefix));
    io.stdout = '';
    io.stderr = '';
    if (options.isolateHome !== false) {
      vi.stubEnv('XDG_CONFIG_HOME', join(io.dir, 'xdg'));
      vi.stubEnv('TAPEDECK_HOME', join(io.dir, 'home'));
      vi.stubEnv('TAPEDECK_REDACT', undefined);
      const cwd = options.cwd === undefined ? io.dir : join(io.dir, options.cwd);
      mkdirSync(cwd, { recursive: true });
      vi.spyOn(process, 'cwd').mockReturnValue(cwd);
    }
    for (const [name, value] of Object.entries(options.env ?? {})) vi.stubEnv(name, value);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      io.stderr += String(chunk);
      return true;
    });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      io.stdout += String(chunk);
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    rmSync(io.dir, { recursive: true, force: true });
  });
  return io;
}
