import type { FaultOptions } from '../faults/options.js';
import type { FaultRecord } from '../faults/records.js';
import type { TraceSink } from '../sink/sink.js';
import type { EarlyTraffic } from './early-relay.js';
import type { StartedServer } from './start.js';
import { runStdioProxy } from './stdio.js';
import { finishStdout, openStdout } from './streams.js';

export interface StdioSessionOptions extends FaultOptions {
  /** Told of every fault as it is injected. */
  onFault?: ((record: FaultRecord) => void) | undefined;
  maxMessageBytes: number;
  recordStderr: boolean;
  /** The server, when it was started already (see `startServer`). */
  started?: StartedServer | undefined;
  /** Called once the proxy passes signals on to the server itself. */
  onSignalsForwarded?: (() => void) | undefined;
  /** What a relay forwarded before the recorder was loaded, and the stdout it wrote to (see early-relay). */
  early?: EarlyTraffic | undefined;
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
  const { started, early, ...rest } = options;
  const output = early?.output ?? openStdout();
  const [command, ...args] = argv as [string, ...string[]];
  const result = await runStdioProxy({
    command,
    args,
    sink,
    ...rest,
    ...(started !== undefined ? { started } : {}),
    ...(early !== undefined ? { early: early.chunks, earlyWriteError: early.writeError } : {}),
    output: output.stream,
  });
  // A signal death is 128+n beside the signal's name: readers of the mcp-tape format expect an integer.
  await sink.close({ reason: 'process_exit', exitCode: result.exitCode, signal: result.signal });
  await finishStdout(output);
  return result.exitCode;
}
