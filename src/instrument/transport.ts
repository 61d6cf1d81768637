import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { type CaptureQueue, transportKindOf } from './capture.js';
import { ConnectionTap } from './tap.js';
import type { WireLog } from './wire-log.js';

/**
 * A Transport decorator around the transport a server connects: every message passes through unchanged and is
 * noted in the recorder's WireLog for this connection's ConnectionTap. `send` options (relatedRequestId, resumption) are forwarded, `sessionId` is the inner
 * transport's, `setProtocolVersion` passes through, and handlers already set on the inner transport are exposed
 * so `Protocol.connect()` chains them as it would without the decorator. A failure in the tap is reported and
 * never reaches the server or the client.
 */
export class InstrumentedTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  setProtocolVersion?: (version: string) => void;
  private readonly tap: ConnectionTap;
  private readonly wire: WireLog;

  constructor(
    readonly inner: Transport,
    private readonly queue: CaptureQueue,
  ) {
    this.tap = new ConnectionTap(queue, transportKindOf(inner), () => inner.sessionId);
    this.wire = queue.wire;
    this.onclose = inner.onclose;
    this.onerror = inner.onerror;
    this.onmessage = inner.onmessage;
    const kind = transportKindOf(inner);
    inner.onclose = () => {
      try {
        this.wire.closed(this.tap);
      } catch (err) {
        this.queue.fail(err);
      }
      this.onclose?.();
      try {
        this.queue.connectionClosed?.(kind);
      } catch (err) {
        this.queue.fail(err);
      }
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      try {
        this.wire.incoming(this.tap, message, extra);
      } catch (err) {
        this.queue.fail(err);
      }
      this.onmessage?.(message, extra);
    };
    if (typeof inner.setProtocolVersion === 'function') {
      this.setProtocolVersion = (version) => inner.setProtocolVersion?.(version);
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      this.wire.outgoing(this.tap, message, options?.relatedRequestId);
    } catch (err) {
      this.queue.fail(err);
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
