/**
 * Every capture point held to one contract (contract.ts), fed the same scripted exchange: the stdio proxy's pipe
 * taps, the SDK Transport decorator on either end of a session, the HTTP recorder the recording proxy and the
 * bridge feed, and the raw upstream client with its capture (what the bridge and the live HTTP peer record).
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PipeCapture } from '../../src/capture/pipe-capture.js';
import { recordTransport } from '../../src/capture/record-transport.js';
import { HttpRecorder } from '../../src/proxy/http/recorder.js';
import type { MemorySink } from '../../src/sink/memory.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import { upstreamCapture } from '../../src/upstream/capture.js';
import { createUpstream } from '../../src/upstream/index.js';
import { flush } from '../helpers/clock.js';
import { captureContract, type Step } from './contract.js';
import { httpPlan, scriptedStreamableServer } from './http-script.js';

const line = (message: JsonObject) => Buffer.from(`${JSON.stringify(message)}\n`);

captureContract(
  'PipeCapture (the stdio proxy’s taps), lines cut into 7-byte reads',
  async (exchange, sink) => {
    const taps = {
      in: new PipeCapture({
        dir: 'in',
        maxMessageBytes: 1 << 20,
        emit: (body, text) => sink.append(body, text),
      }),
      out: new PipeCapture({
        dir: 'out',
        maxMessageBytes: 1 << 20,
        emit: (body, text) => sink.append(body, text),
      }),
    };
    for (const [dir, message] of exchange) {
      // Reads rarely end where lines do, and may split a UTF-8 character.
      const bytes = line(message);
      for (let at = 0; at < bytes.length; at += 7) taps[dir].push(bytes.subarray(at, at + 7));
    }
    taps.in.end();
    taps.out.end();
  },
);

/** The SDK's linked in-memory transports, one end wrapped by recordTransport. */
async function throughTransport(side: 'client' | 'server', exchange: readonly Step[], sink: MemorySink) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const wrapped = recordTransport(side === 'client' ? clientEnd : serverEnd, { sink, side });
  const client: Transport = side === 'client' ? wrapped : clientEnd;
  const server: Transport = side === 'client' ? serverEnd : wrapped;
  const arrived: string[] = [];
  client.onmessage = (message) => arrived.push(`client got ${JSON.stringify(message)}`);
  server.onmessage = (message) => arrived.push(`server got ${JSON.stringify(message)}`);
  await client.start();
  await server.start();
  for (const [dir, message] of exchange) {
    await (dir === 'in' ? client : server).send(message as JSONRPCMessage);
    await flush(1);
  }
  if (arrived.length !== exchange.length) throw new Error(`only ${arrived.length} messages arrived`);
}

captureContract('recordTransport on the client’s end', (exchange, sink) =>
  throughTransport('client', exchange, sink),
);

captureContract('recordTransport on the server’s end', (exchange, sink) =>
  throughTransport('server', exchange, sink),
);

captureContract(
  'HttpRecorder (the recording proxy’s), fed Streamable HTTP exchanges',
  async (exchange, sink) => {
    const recorder = new HttpRecorder({ sink });
    const open = new Map<number, ReturnType<HttpRecorder['exchange']>>();
    for (const step of httpPlan(exchange)) {
      if (step.kind === 'post') {
        const x = recorder.exchange({
          method: 'POST',
          url: 'http://127.0.0.1:3001/mcp',
          headers: { 'content-type': 'application/json', 'mcp-session-id': 's-1' },
        });
        x.requestChunk(Buffer.from(JSON.stringify(step.message)));
        x.requestEnd();
        if (step.stream === undefined) {
          x.response(202, {});
          x.responseEnd();
          x.close();
        } else {
          x.response(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
          open.set(step.stream, x);
        }
      } else {
        const x = open.get(step.stream)!;
        x.responseChunk(Buffer.from(`id: e${step.index}\ndata: ${JSON.stringify(step.message)}\n\n`));
        if (step.last) {
          x.responseEnd();
          x.close();
          open.delete(step.stream);
        }
      }
    }
  },
);

captureContract(
  'the raw upstream client and its capture (the bridge’s, the live HTTP peer’s)',
  async (exchange, sink) => {
    const capture = upstreamCapture((body, text) => sink.append(body, text));
    const server = scriptedStreamableServer(exchange);
    const upstream = createUpstream({
      url: 'http://127.0.0.1:3001/mcp',
      fetch: server.fetch,
      onMessage: (message) => {
        capture.received(message);
        server.delivered();
      },
      onSent: capture.sent,
    });
    await upstream.start();
    const answers: Promise<unknown>[] = [];
    for (const [dir, message] of exchange) {
      if (dir === 'in') {
        answers.push(upstream.send(message));
        await server.received(answers.length);
      } else {
        await server.play();
      }
    }
    await Promise.all(answers);
    await upstream.close();
  },
);
