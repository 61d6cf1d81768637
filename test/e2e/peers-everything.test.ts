/**
 * The official SDK client against @modelcontextprotocol/server-everything, once directly and once through
 * `tapedeck record`: the client must not notice the recorder, and the trace must hold exactly what crossed the wire.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, type CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageLine, TraceLine } from '../../src/trace/types.js';
import {
  type CommandLine,
  connectClient,
  everythingServer,
  isNotification,
  isRequest,
  isResponse,
  makeTempDir,
  mcpTapeProblems,
  readTrace,
  recorded,
  removeTempDir,
  responsesByRequest,
  rpc,
  settle,
  type TraceParts,
  traceParts,
} from '../helpers/peers.js';

const CANNED_SAMPLE: CreateMessageResult = {
  model: 'canned-model',
  role: 'assistant',
  content: { type: 'text', text: 'A canned answer from the test client.' },
  stopReason: 'endTurn',
};
const STEPS = 5;
const STATIC_DOC = 'demo://resource/static/document/instructions.md';

interface Progress {
  progress: number;
  total?: number | undefined;
}

/** One session's worth of calls; everything returned must be identical direct and recorded. */
async function exercise(client: Client) {
  const progress: Progress[] = [];
  const results = {
    server: {
      version: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
    },
    tools: await settle(() => client.listTools()),
    echo: await settle(() => client.callTool({ name: 'echo', arguments: { message: 'hello, tape ✓' } })),
    sum: await settle(() => client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } })),
    // A tool error and a protocol error must come back the same way as well.
    badArgs: await settle(() => client.callTool({ name: 'get-sum', arguments: { a: 'one' } })),
    unknownTool: await settle(() => client.callTool({ name: 'no-such-tool', arguments: {} })),
    longRunning: await settle(() =>
      client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.5, steps: STEPS } },
        undefined,
        { onprogress: (p) => progress.push({ progress: p.progress, total: p.total }) },
      ),
    ),
    sampling: await settle(() =>
      client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 25 } }),
    ),
    resource: await settle(() => client.readResource({ uri: STATIC_DOC })),
    prompts: await settle(() => client.listPrompts()),
    simplePrompt: await settle(() => client.getPrompt({ name: 'simple-prompt' })),
    argsPrompt: await settle(() =>
      client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon', state: 'PT' } }),
    ),
  };
  return { results, progress };
}

async function runSession(target: CommandLine) {
  const samplingRequests: unknown[] = [];
  const { client, transport } = await connectClient(target, { capabilities: { sampling: {} } }, (c) =>
    c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      samplingRequests.push(request.params);
      return CANNED_SAMPLE;
    }),
  );
  try {
    const { results, progress } = await exercise(client);
    return { results, progress, samplingRequests, sent: transport.sent, received: transport.received };
  } finally {
    await client.close();
  }
}

type Session = Awaited<ReturnType<typeof runSession>>;

describe('SDK client ↔ server-everything, direct and through tapedeck record', () => {
  let tmp: string | undefined;
  let traceFile: string;
  let direct: Session;
  let proxied: Session;
  let lines: TraceLine[];
  let trace: TraceParts;

  beforeAll(async () => {
    tmp = await makeTempDir();
    traceFile = join(tmp, 't.jsonl');
    direct = await runSession(everythingServer());
    proxied = await runSession(recorded(everythingServer(), { file: traceFile }));
    lines = readTrace(traceFile);
    trace = traceParts(lines);
  });

  afterAll(() => removeTempDir(tmp));

  it('gives the client the same results as a direct connection', () => {
    // Sanity: the calls really did something, so equality below is not two empty objects.
    const r = proxied.results;
    expect(r.tools).toMatchObject({
      tools: expect.arrayContaining([expect.objectContaining({ name: 'echo' })]),
    });
    expect(r.echo).toMatchObject({ content: [{ type: 'text', text: 'Echo: hello, tape ✓' }] });
    expect(JSON.stringify(r.sum)).toContain('42');
    expect(r.badArgs).toMatchObject({ isError: true });
    expect(r.longRunning).toMatchObject({
      content: [{ text: `Long running operation completed. Duration: 0.5 seconds, Steps: ${STEPS}.` }],
    });
    expect(JSON.stringify(r.sampling)).toContain(CANNED_SAMPLE.model);
    expect(r.resource).toMatchObject({ contents: [{ uri: STATIC_DOC, mimeType: 'text/markdown' }] });
    expect(r.argsPrompt).toMatchObject({
      messages: [{ content: { text: "What's weather in Lisbon, PT?" } }],
    });

    expect(proxied.results).toEqual(direct.results);
    expect(proxied.samplingRequests).toEqual(direct.samplingRequests);
    expect(proxied.samplingRequests).toHaveLength(1);
  });

  it('delivers progress notifications to the client', () => {
    // The SDK client may drop the last callback when it shares a chunk with the response.
    for (const session of [direct, proxied]) {
      expect(session.progress.length).toBeGreaterThanOrEqual(STEPS - 1);
      expect(session.progress.length).toBeLessThanOrEqual(STEPS);
      expect(session.progress).toEqual(
        Array.from({ length: session.progress.length }, (_, i) => ({ progress: i + 1, total: STEPS })),
      );
    }
  });

  it('writes a meta line first and an end line with the exit code last', () => {
    expect(trace.meta).toMatchObject({
      v: 1,
      type: 'meta',
      kind: 'mcp',
      segment: 0,
      transport: 'stdio',
      producer: { name: 'tapedeck', version: expect.any(String) },
      traceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      label: 'server-everything',
    });
    const server = everythingServer();
    expect(trace.meta.command).toEqual([server.command, ...server.args]);
    // The server exits on its own when the client closes stdin.
    expect(trace.end).toMatchObject({ type: 'end', reason: 'process_exit', exitCode: 0 });
    expect(trace.end.counts).toMatchObject({ in: trace.in.length, out: trace.out.length });
  });

  it('numbers every record line with a strictly increasing seq', () => {
    const seqs = trace.records.map((line) => (line as { seq?: number }).seq);
    expect(seqs.every((s) => Number.isInteger(s))).toBe(true);
    for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]!).toBeGreaterThan(seqs[i - 1]!);
  });

  it('records every message the client sent as "in" and every message it received as "out", in order', () => {
    expect(trace.in).toEqual(proxied.sent);
    expect(trace.out).toEqual(proxied.received);
    // …and the recorded session is the same conversation as the direct one, message for message.
    expect(proxied.sent.map((m) => rpc(m).method)).toEqual(direct.sent.map((m) => rpc(m).method));
    expect(rpc(trace.in[0]!).method).toBe('initialize');
  });

  it('records each progress notification with the progressToken of the request that asked for it', () => {
    const call = trace.messages.find(
      (m) =>
        m.dir === 'in' &&
        rpc(m.raw).method === 'tools/call' &&
        rpc(m.raw).params?.name === 'trigger-long-running-operation',
    );
    expect(call).toBeDefined();
    const token = (rpc(call!.raw).params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    expect(token).toBeDefined();
    const progress = trace.messages.filter(
      (m) => m.dir === 'out' && rpc(m.raw).method === 'notifications/progress',
    );
    // The recorder sees the wire, so unlike the client callbacks all of them are there.
    expect(progress.map((m) => rpc(m.raw).params)).toEqual(
      Array.from({ length: STEPS }, (_, i) => ({ progress: i + 1, total: STEPS, progressToken: token })),
    );
    const response = trace.messages.find(
      (m) => m.dir === 'out' && isResponse(rpc(m.raw)) && rpc(m.raw).id === rpc(call!.raw).id,
    );
    expect(response).toBeDefined();
    for (const p of progress) {
      expect(p.seq!).toBeGreaterThan(call!.seq!);
      expect(p.seq!).toBeLessThan(response!.seq!);
    }
  });

  it('records the server → client sampling request and the client answer, paired by direction', () => {
    const samplingRequests = trace.messages.filter(
      (m) => m.dir === 'out' && rpc(m.raw).method === 'sampling/createMessage',
    );
    expect(samplingRequests).toHaveLength(1);
    const request = samplingRequests[0]!;
    const id = rpc(request.raw).id;
    expect(rpc(request.raw).params).toEqual(proxied.samplingRequests[0]);

    const answers = responsesByRequest(trace.messages, 'out').get(request);
    expect(answers).toHaveLength(1);
    const answer = answers![0]!;
    expect(answer.dir).toBe('in');
    expect(answer.seq!).toBeGreaterThan(request.seq!);
    expect(rpc(answer.raw).result).toEqual(CANNED_SAMPLE);

    // The server counts its own ids from 0 and so does the SDK client: `initialize` had the same id. Only the
    // direction tells the two exchanges apart.
    const clientRequestWithSameId = trace.messages.find(
      (m) => m.dir === 'in' && isRequest(rpc(m.raw)) && rpc(m.raw).id === id,
    );
    expect(clientRequestWithSameId && rpc(clientRequestWithSameId.raw).method).toBe('initialize');
    const itsResponse = responsesByRequest(trace.messages, 'in').get(clientRequestWithSameId!);
    expect(itsResponse).toHaveLength(1);
    expect(itsResponse![0]!.dir).toBe('out');
    expect(rpc(itsResponse![0]!.raw).result).toHaveProperty('serverInfo');
  });

  it('holds exactly one response for every client request', () => {
    const pairs = responsesByRequest(trace.messages, 'in');
    expect(pairs.size).toBe(proxied.sent.filter((m) => isRequest(rpc(m))).length);
    for (const [request, responses] of pairs) {
      expect({ request: rpc(request.raw).method, responses: responses.length }).toEqual({
        request: rpc(request.raw).method,
        responses: 1,
      });
      expect(responses[0]!.seq!).toBeGreaterThan(request.seq!);
    }
    // Notifications the server sent unprompted are there too (tools registered after init).
    expect(
      trace.out.some((m) => isNotification(rpc(m)) && rpc(m).method === 'notifications/tools/list_changed'),
    ).toBe(true);
  });

  it('keeps the server stderr as stderr lines, not as protocol messages', () => {
    const stderr = trace.records.filter((line) => line.type === 'stderr');
    expect(stderr.map((line) => (line as { text: string }).text)).toContain(
      'Starting default (STDIO) server...',
    );
    expect(trace.records.some((line) => line.type === 'text')).toBe(false);
  });

  it('opens as an mcp-tape v1 file', () => {
    expect(mcpTapeProblems(lines)).toEqual([]);
    const messageLines = lines.filter((line): line is MessageLine => 'raw' in line);
    expect(messageLines.length).toBe(trace.in.length + trace.out.length);
  });

  it('writes the trace file with mode 0600', () => {
    if (process.platform === 'win32') return; // POSIX modes only
    expect(statSync(traceFile).mode & 0o777).toBe(0o600);
  });
});
