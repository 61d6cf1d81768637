import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, beforeEach, vi } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';

/** A stream that keeps what is written to it as text; says it is a terminal when asked to. */
export class TextSink extends Writable {
  text = '';
  isTTY: boolean;
  columns?: number;

  /** `onText` sees each write as it happens (a harness keeps one string across runs). */
  constructor(
    tty: { isTTY?: boolean; columns?: number } = {},
    private readonly onText?: (text: string) => void,
  ) {
    super();
    this.isTTY = tty.isTTY === true;
    if (tty.columns !== undefined) this.columns = tty.columns;
  }

  override _write(chunk: Buffer | string, _encoding: string, done: () => void): void {
    const text = chunk.toString();
    this.text += text;
    this.onText?.(text);
    done();
  }
}

/** An in-memory CliIo: stdout and stderr kept as text, the environment and working folder as given. */
export interface MemoryIo extends CliIo {
  stdout: TextSink;
  stderr: TextSink;
}

/**
 * A CliIo for one in-process run that touches no process stream: by default an empty environment, the process's
 * working folder and an empty stdin.
 *
 * @example const io = memoryIo({ env: { NO_COLOR: '1' } }); await run(['stats', f], io); io.stdout.text;
 */
export function memoryIo(
  init: { env?: CliIo['env']; cwd?: string; stdin?: NodeJS.ReadableStream; tty?: { columns?: number } } = {},
): MemoryIo {
  return {
    stdout: new TextSink(init.tty === undefined ? {} : { isTTY: true, ...init.tty }),
    stderr: new TextSink(),
    stdin: init.stdin ?? Readable.from([]),
    env: init.env ?? {},
    cwd: init.cwd ?? process.cwd(),
  };
}

/** What an in-process CLI test sees: a fresh folder, the run's environment, and everything the command wrote. */
export interface CliHarness {
  dir: string;
  /** The working folder runs get (the temp folder, or the subfolder asked for). */
  cwd: string;
  /** The environment runs get; a test may set or delete names before it runs the CLI. */
  env: Record<string, string | undefined>;
  /** Whether the runs' stdout says it is a terminal (default: no, as in a pipe); a test may change it. */
  tty: boolean;
  stdout: string;
  stderr: string;
  /** Runs the CLI in-process against this harness (stdin: an empty stream unless given). */
  run(argv: string[], stdin?: NodeJS.ReadableStream): Promise<number>;
}

export interface CliHarnessOptions {
  /** Point the user config, the install key and $TAPEDECK_REDACT away from the real home (default true). */
  isolateHome?: boolean;
  /** A subfolder of `dir` to use as the working directory (default: `dir` itself). */
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** The runs' stdout says it is a terminal (default false). */
  tty?: boolean;
}

/**
 * Installs beforeEach/afterEach hooks for tests that run the CLI in-process through `io.run([...])`: a temp folder
 * as the working folder, stdout and stderr collected as strings, and (by default) a home of its own so no test
 * reads or writes the real `~/.tapedeck`.
 *
 * The isolating variables are set on the process's environment as well: a server the command starts inherits that
 * one, and library defaults outside the CLI read it.
 *
 * @example const io = useCliHarness('tapedeck-scan-'); it('…', async () => { await io.run(['scan', f]); io.stdout; });
 */
export function useCliHarness(prefix: string, options: CliHarnessOptions = {}): CliHarness {
  const harness: CliHarness = {
    dir: '',
    cwd: '',
    env: {},
    tty: false,
    stdout: '',
    stderr: '',
    run(argv, stdin) {
      // Appended as they are written, so a test can read them while a long-running command still runs.
      return run(argv, {
        stdout: new TextSink({ isTTY: harness.tty }, (text) => {
          harness.stdout += text;
        }),
        stderr: new TextSink({}, (text) => {
          harness.stderr += text;
        }),
        stdin: stdin ?? Readable.from([]),
        env: harness.env,
        cwd: harness.cwd,
      });
    },
  };
  beforeEach(() => {
    harness.dir = mkdtempSync(join(tmpdir(), prefix));
    harness.stdout = '';
    harness.stderr = '';
    harness.tty = options.tty === true;
    harness.cwd = options.cwd === undefined ? harness.dir : join(harness.dir, options.cwd);
    mkdirSync(harness.cwd, { recursive: true });
    const isolation: Record<string, string | undefined> =
      options.isolateHome === false
        ? {}
        : {
            XDG_CONFIG_HOME: join(harness.dir, 'xdg'),
            TAPEDECK_HOME: join(harness.dir, 'home'),
            TAPEDECK_REDACT: undefined,
          };
    for (const [name, value] of Object.entries(isolation)) vi.stubEnv(name, value);
    harness.env = { ...process.env, ...isolation, ...options.env };
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(harness.dir, { recursive: true, force: true });
  });
  return harness;
}
