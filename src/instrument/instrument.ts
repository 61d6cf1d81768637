import type { InstrumentableServer } from './attach.js';
import { createRecorder, isRecorder, type Recorder } from './recorder.js';
import type { InstrumentOptions } from './types.js';

/**
 * Records what clients ask of a server built on the official TypeScript SDK 1.x (`McpServer` or `Server`), over
 * any transport it connects — stdio, Streamable HTTP, SSE, in-memory — into a tapedeck collector, a trace file per
 * session, or OpenTelemetry — by default a trace file per session under `$TAPEDECK_DIR` (or `~/.tapedeck/traces`).
 * Call it before `server.connect()`; tools, resources and prompts registered later are recorded too. The recording
 * is finished when a stdio connection closes and when the process ends (see lifecycle.ts). Pass a Recorder instead of options to add a server to an existing recording (a server per
 * session or per request).
 *
 * @example
 * const server = new McpServer({ name: 'weather', version: '1.4.0' });
 * const recorder = instrument(server, {
 *   to: { type: 'collector', url: 'http://127.0.0.1:7420', token: process.env.TAPEDECK_TOKEN! },
 *   getUser: (ctx) => (ctx.authInfo ? { id: ctx.authInfo.clientId } : undefined),
 *   release: process.env.GIT_SHA,
 * });
 * await server.connect(new StdioServerTransport());
 * process.on('SIGTERM', () => void recorder.shutdown());
 */
export function instrument(
  server: InstrumentableServer,
  options: InstrumentOptions | Recorder = {},
): Recorder {
  const recorder = isRecorder(options) ? options : createRecorder(options);
  recorder.instrument(server);
  return recorder;
}
