/**
 * Shared pieces for the instrument tests: a sink that keeps events in memory, an in-process client/server pair
 * over the SDK's linked in-memory transports, and a tiny HTTP receiver standing in for a collector or an OTLP
 * endpoint.
 */
import { createServer, type Server as HttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { InstrumentableServer } from '../../src/instrument/attach.js';
import type { EventSink, RequestEvent } from '../../src/instrument/types.js';

/** A sink that keeps every event and counts its writes (uploads). */
export interface MemoryEvents {
  sink: EventSink;
  events: RequestEvent[];
  batches: number[];
  ended: string[];
}

export function memoryEvents(): MemoryEvents {
  const kept: MemoryEvents = {
    events: [],
    batches: [],
    ended: [],
    sink: {
      name: 'memory',
      async write(events) {
        kept.batches.push(events.length);
        kept.events.push(...events);
      },
      sessionEnded(id) {
        kept.ended.push(id);
      },
    },
  };
  return kept;
}

/** Adds `authInfo` to every message a client sends, as an authenticating HTTP transport would hand it over. */
class AuthenticatedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  constructor(
    private readonly inner: InMemoryTransport,
    private readonly authInfo: AuthInfo,
  ) {}
  async start(): Promise<void> {
    this.inner.onmessage = (message) => this.onmessage?.(message);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const related = options?.relatedRequestId;
    return this.inner.send(message, {
      authInfo: this.authInfo,
      ...(related === undefined ? {} : { relatedRequestId: related }),
    });
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

export interface LinkOptions {
  client?: { name: string; version: string };
  clientOptions?: ClientOptions;
  authInfo?: AuthInfo;
  setup?: (client: Client) => void;
}

/** Connects an SDK client to `server` over linked in-memory transports. */
export async function linkClient(
  server: InstrumentableServer & { connect(t: Transport): Promise<void> },
  options: LinkOptions = {},
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    options.client ?? { name: 'test-client', version: '1.0.0' },
    options.clientOptions,
  );
  options.setup?.(client);
  await client.connect(
    options.authInfo === undefined ? clientSide : new AuthenticatedTransport(clientSide, options.authInfo),
  );
  return client;
}

/** One request an HTTP receiver got. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** Decides the answer to each request; default 200 `{}`. */
  respond: (
    req: Received,
    index: number,
  ) => { status: number; body?: string; headers?: Record<string, string> };
  close(): Promise<void>;
}

/** A local HTTP server on an ephemeral port that records requests and answers as `respond` says. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    requests: [],
    respond: () => ({ status: 200, body: '{}' }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.requests.push(received);
      const answer = receiver.respond(received, receiver.requests.length - 1);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = receiver.close;
  receiver.close = async () => {
    server.closeAllConnections();
    await close();
  };
  return receiver;
}

/** The events of one method (and target), in the order they were delivered. */
export function eventsOf(events: RequestEvent[], method: string, target?: string): RequestEvent[] {
  return events.filter((e) => e.method === method && (target === undefined || e.target === target));
}
