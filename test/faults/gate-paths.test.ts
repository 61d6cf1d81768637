/**
 * One fault plan through every front door that carries faults out: the stdio recording proxy, the HTTP recording
 * proxy, the replay engine's channel and the SDK transport. Each decides through the same gate (src/faults/gate.ts),
 * so the same client messages get the same faults — single requests and JSON-RPC batches alike, each message of a
 * batch judged on its own.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { realScheduler } from '../../src/base/scheduler.js';
import type { McpTransport, TransportMessage } from '../../src/capture/sdk-transport.js';
import { faultPlan } from '../../src/faults/options.js';
import type { FaultRecord } from '../../src/faults/records.js';
import { StdioFaults } from '../../src/proxy/stdio-faults.js';
import { type FaultableChannel, withFaults } from '../../src/replay/engine/faults.js';
import { withTransportFaults } from '../../src/replay/sdk/fault-transport.js';
import type { Json } from '../../src/trace/types.js';
import { eventsOf, startRecording, startUpstream } from '../helpers/http-proxy.js';

const FAULTS = [
  'error=-32050@tools/call:boom',
  'drop@tools/call:lost',
  'duplicate@tools/call:twice',
  'tool-error@tools/call:fail',
];
const options = { faults: FAULTS, seed: 1 };

interface Call {
  jsonrpc: '2.0';
  id: number;
  method: 'tools/call';
  params: { name: string };
}
const NAMES = ['boom', 'lost', 'twice', 'fail', 'ok'];
const calls: Call[] = NAMES.map((name, index) => ({
  jsonrpc: '2.0',
  id: index + 1,
  method: 'tools/call',
  params: { name },
}));

/** What a live server (or the cassette) answers: the tool's name back. */
const answerTo = (call: Call) => ({
  jsonrpc: '2.0' as const,
  id: call.id,
  result: { content: [{ type: 'text', text: call.params.name }] },
});
const answersTo = (message: Call | Call[]) =>
  Array.isArray(message) ? message.map(answerTo) : answerTo(message);

/** What the client must get, flattened in order: an error, nothing, the answer twice, a tool error, the answer. */
const EXPECTED_ANSWERS = [
  { id: 1, error: { code: -32050 } },
  answerTo(calls[2]!),
  answerTo(calls[2]!),
  { id: 4, result: { isError: true } },
  answerTo(calls[4]!),
];
const EXPECTED_RECORDS = [
  { kind: 'error', id: 1, target: 'boom', code: -32050 },
  { kind: 'drop', id: 2, target: 'lost' },
  { kind: 'duplicate', id: 3, target: 'twice' },
  { kind: 'tool-error', id: 4, target: 'fail' },
];

interface Outcome {
  /** Every message the client got, batches flattened. */
  answers: Json[];
  records: FaultRecord[];
}

const flatten = (messages: Json[]): Json[] => messages.flatMap((m) => (Array.isArray(m) ? m : [m]));

/** The stdio recording proxy: client lines copied to the gate, the server's lines through the answer pump. */
async function throughStdioProxy(messages: (Call | Call[])[]): Promise<Outcome> {
  const records: FaultRecord[] = [];
  const faults = StdioFaults.open(options, { record: (r) => records.push(r), cut: () => {} })!;
  const source = new PassThrough();
  const destination = new PassThrough();
  const out: Buffer[] = [];
  destination.on('data', (chunk: Buffer) => out.push(chunk));
  const pump = faults.answers(source, destination, () => {});
  for (const message of messages) {
    faults.requests(Buffer.from(`${JSON.stringify(message)}\n`));
    source.write(`${JSON.stringify(answersTo(message))}\n`);
  }
  source.end();
  await pump.done;
  faults.disarm();
  const lines = Buffer.concat(out).toString('utf8').split('\n').filter(Boolean);
  return { answers: flatten(lines.map((line) => JSON.parse(line) as Json)), records };
}

/** The replay engine's fault decorator: the engine answers a batch's requests one by one, as it does. */
function throughReplay(messages: (Call | Call[])[]): Outcome {
  const records: FaultRecord[] = [];
  const sent: Json[] = [];
  let deliver: (message: Json) => void = () => {};
  const channel: FaultableChannel = {
    onMessage: (handler) => {
      deliver = handler;
    },
    send: (message) => sent.push(message),
    sendText: () => expect.fail('no answer is cut here'),
    sendSlowly: () => expect.fail('no answer is slowed here'),
    disconnect: () => expect.fail('nothing disconnects here'),
  };
  const faulted = withFaults(channel, faultPlan(options, realScheduler)!, {
    scheduler: realScheduler,
    onFault: (record) => records.push(record),
  });
  const engineGot: Json[] = [];
  faulted.onMessage((message) => engineGot.push(message));
  for (const message of messages) {
    deliver(message as unknown as Json);
    for (const answer of flatten([answersTo(message) as unknown as Json])) faulted.send(answer);
  }
  expect(engineGot).toEqual(messages);
  return { answers: sent, records };
}

/** The SDK transport decorator around a live server's transport (which carries one message at a time). */
async function throughSdkTransport(messages: Call[]): Promise<Outcome> {
  const records: FaultRecord[] = [];
  const inner: McpTransport = {
    start: async () => {},
    close: async () => {},
    send: async (message) =>
      inner.onmessage?.(answersTo(message as unknown as Call) as unknown as TransportMessage),
  };
  const transport = withTransportFaults(inner, options, (record) => records.push(record));
  const answers: Json[] = [];
  transport.onmessage = (message) => answers.push(message as unknown as Json);
  await transport.start();
  for (const message of messages) await transport.send(message as unknown as TransportMessage);
  return { answers, records };
}

describe('one fault gate behind every front door', () => {
  it('gives single requests the same faults through the stdio proxy, the replay engine and the SDK transport', async () => {
    for (const outcome of [
      await throughStdioProxy(calls),
      throughReplay(calls),
      await throughSdkTransport(calls),
    ]) {
      expect(outcome.answers).toMatchObject(EXPECTED_ANSWERS);
      expect(outcome.records).toMatchObject(EXPECTED_RECORDS);
    }
  });

  it('judges each message of a batch on its own: the stdio proxy rebuilds the batch line, replay answers each', async () => {
    const stdio = await throughStdioProxy([calls]);
    expect(stdio.answers).toMatchObject(EXPECTED_ANSWERS);
    expect(stdio.records).toMatchObject(EXPECTED_RECORDS);
    const replay = throughReplay([calls]);
    expect(replay.answers).toMatchObject(EXPECTED_ANSWERS);
    expect(replay.records).toMatchObject(EXPECTED_RECORDS);
  });

  it('counts a batch’s requests as if each came alone (#NTH reaches into batches)', async () => {
    const nth = { faults: ['error@tools/call#2'], seed: 1 };
    const records: FaultRecord[] = [];
    const faults = StdioFaults.open(nth, { record: (r) => records.push(r), cut: () => {} })!;
    faults.requests(Buffer.from(`${JSON.stringify(calls[0])}\n${JSON.stringify([calls[1], calls[2]])}\n`));
    faults.disarm();
    expect(records).toMatchObject([{ kind: 'error', id: 2, nth: 2 }]);
  });

  it('cuts a whole batch line when one of its answers is malformed, over stdio', async () => {
    const records: FaultRecord[] = [];
    const faults = StdioFaults.open(
      { faults: ['malformed@tools/call:boom'], seed: 1 },
      { record: (r) => records.push(r), cut: () => {} },
    )!;
    const source = new PassThrough();
    const destination = new PassThrough();
    const out: Buffer[] = [];
    destination.on('data', (chunk: Buffer) => out.push(chunk));
    const pump = faults.answers(source, destination, () => {});
    const batch = calls.slice(0, 2);
    faults.requests(Buffer.from(`${JSON.stringify(batch)}\n`));
    const line = JSON.stringify(answersTo(batch));
    source.end(`${line}\n`);
    await pump.done;
    faults.disarm();
    const sent = Buffer.concat(out).toString('utf8');
    expect(sent.endsWith('\n')).toBe(true);
    expect(line.startsWith(sent.trimEnd())).toBe(true);
    expect(() => JSON.parse(sent)).toThrow(SyntaxError);
    expect(records).toMatchObject([{ kind: 'malformed', id: 1 }]);
  });

  it('judges each message of a batch on its own over the HTTP proxy: one JSON array, rebuilt', async () => {
    const upstream = await startUpstream((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answersTo(JSON.parse(body) as Call[])));
      });
    });
    const records: FaultRecord[] = [];
    const recording = await startRecording(`${upstream.origin}/mcp`, {
      ...options,
      onFault: (record) => records.push(record),
    });
    try {
      const response = await fetch(recording.proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(calls),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json()) as Json;
      expect(Array.isArray(body)).toBe(true);
      expect(body).toMatchObject(EXPECTED_ANSWERS);
      expect(records).toMatchObject(EXPECTED_RECORDS);
    } finally {
      await recording.stop();
      await upstream.close();
    }
    // The trace keeps what the upstream really sent, and one fault event per injection.
    expect(eventsOf(recording.sink.lines, 'fault')).toMatchObject(EXPECTED_RECORDS);
  });
});
