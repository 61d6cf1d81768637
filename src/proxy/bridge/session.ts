import type { TraceSink } from '../../sink/sink.js';
import { finishStdout, openStdout } from '../streams.js';
import { type HttpBridgeOptions, runHttpBridge } from './bridge.js';

/**
 * One whole bridged recording on this process's stdio: run the bridge into `sink` (already started), write the
 * `end` line once the session is closed (reason `transport_error` when the upstream was out of reach at the end),
 * wait until everything written to the client has left, and resolve to the exit code.
 *
 * @example process.exitCode = await recordHttpSession({ url: 'http://127.0.0.1:3001/mcp' }, sink);
 */
export async function recordHttpSession(
  options: Omit<HttpBridgeOptions, 'sink' | 'output'>,
  sink: TraceSink,
): Promise<number> {
  const output = openStdout();
  const result = await runHttpBridge({ ...options, sink, output: output.stream });
  // An upstream out of reach at the end is how the session ended, whatever the client did.
  const reason = result.transportError !== undefined ? 'transport_error' : 'process_exit';
  await sink.close({ reason, exitCode: result.exitCode });
  await finishStdout(output);
  return result.exitCode;
}
