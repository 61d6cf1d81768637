import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TapedeckError } from '../base/errors.js';
import type { CaptureQueue } from './capture.js';
import { InstrumentedTransport } from './transport.js';

/** The part of the SDK's `Server` (a `Protocol`) that instrumenting touches: its public `connect` and `transport`. */
export interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
  readonly transport?: Transport | undefined;
}

/** An SDK 1.x `McpServer` (which holds a `Server`) or a `Server`. */
export type InstrumentableServer = ConnectableServer | { server: ConnectableServer };

const ATTACHED = Symbol.for('tapedeck.instrument.queue');

type Marked = ConnectableServer & { [ATTACHED]?: CaptureQueue };

function protocolOf(server: InstrumentableServer): Marked {
  const inner = (server as { server?: unknown }).server;
  if (typeof inner === 'object' && inner !== null && typeof (inner as Marked).connect === 'function') {
    return inner as Marked;
  }
  if (typeof (server as Marked)?.connect === 'function') return server as Marked;
  throw new TapedeckError(
    'usage',
    'instrument() expects an McpServer or a Server from @modelcontextprotocol/sdk 1.x (an object with connect())',
  );
}

/**
 * Makes `server` record through `queue`: its `connect(transport)` (which McpServer.connect calls too) now connects
 * an InstrumentedTransport around the given one. Tools, resources and prompts registered at any time are covered,
 * since recording happens on the wire. Attaching the same queue twice does nothing.
 */
export function attach(server: InstrumentableServer, queue: CaptureQueue): void {
  const target = protocolOf(server);
  const marker = target[ATTACHED];
  if (marker === queue) return;
  if (marker !== undefined) {
    throw new TapedeckError(
      'usage',
      'this server is already instrumented by another recorder; instrument it once',
    );
  }
  if (target.transport !== undefined) {
    throw new TapedeckError(
      'usage',
      'instrument(server) must run before server.connect(transport): this server is already connected',
    );
  }
  const connect = target.connect;
  Object.defineProperty(target, 'connect', {
    configurable: true,
    writable: true,
    value: function connectInstrumented(this: ConnectableServer, transport: Transport): Promise<void> {
      return connect.call(this, new InstrumentedTransport(transport, queue));
    },
  });
  Object.defineProperty(target, ATTACHED, { value: queue, configurable: true });
}
