import { TapedeckError } from '../base/errors.js';

/** Exit codes: 0 ok, 1 a finding or bad input, 2 a usage error. */
export const EXIT = { ok: 0, finding: 1, input: 1, usage: 2 } as const;

export function usageError(message: string): TapedeckError {
  return new TapedeckError('usage', message);
}

/** Maps any thrown value to one line of text and an exit code; never a stack trace for a known failure. */
export function describeFailure(err: unknown): { message: string; exitCode: number } {
  if (err instanceof TapedeckError) {
    return { message: err.message, exitCode: err.code === 'usage' ? EXIT.usage : EXIT.input };
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('commander.')) {
    // One line: commander puts its "(Did you mean …?)" suggestion on a line of its own.
    const text = String((err as Error).message)
      .replace(/^error: /, '')
      .replace(/\s*\n\s*/g, ' ');
    return { message: `${text} (see tapedeck --help)`, exitCode: EXIT.usage };
  }
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { message: `internal error: ${message}`, exitCode: 70 };
}
