import type { TraceSink } from '../sink/sink.js';
import { runStdioProxy } from './stdio.js';
import { finishStdout, openStdout } from './streams.js';

export interface StdioSessionOptions {
  maxMessageBytes: number;
  recordStderr: boolean;
}

/**
 * One whole recording on this process's stdio: proxy `argv` into `sink` (already started), write the `end` line,
 * wait until everything forwarded to the client has left, and resolve to the exit code to pass on.
 *
 * @example process.exitCode = await recordStdioSession(['node', 'server.js'], sink, { maxMessageBytes: 1 << 24, recordStderr: true });
 */
export async function recordStdioSession(
  argv: readonly string[],
  sink: TraceSink,
  options: StdioSessionOptions,
): Promise<number> {
  const output = openStdout();
  const [command, ...args] = argv as [string, ...string[]];
  const result = await runStdioProxy({ command, args, sink, ...options, output: output.stream });
  // A signal death is 128+n beside the signal's name: readers of the mcp-tape format expect an integer.
  await sink.close({ reason: 'process_exit', exitCode: result.exitCode, signal: result.signal });
  await finishStdout(output);
  return result.exitCode;
}
