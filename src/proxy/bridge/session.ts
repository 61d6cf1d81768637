import type { TraceSink } from '../../sink/sink.js';
import { finishStdout, openStdout } from '../streams.js';
import { type HttpBridgeOptions, runHttpBridge } from './bridge.js';

/**
 * One whole bridged recording on this process's stdio: run the bridge into `sink` (already started), write the
 * `end` line once the session is closed, wait until everything written to the client has left, and resolve to the
 * exit code.
 *
 * @example process.exitCode = await recordHttpSession({ url: 'http://127.0.0.1:3001/mcp' }, sink);
 */
export async function recordHttpSession(
  options: Omit<HttpBridgeOptions, 'sink' | 'output'>,
  sink: TraceSink,
): Promise<number> {
  const output = openStdout();
  const result = await runHttpBridge({ ...options, sink, output: output.stream });
  await sink.close({ reason: 'process_exit', exitCode: result.exitCode });
  await finishStdout(output);
  return result.exitCode;
}
