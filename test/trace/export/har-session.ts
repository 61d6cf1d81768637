/**
 * What the HAR tests share: a recording made by the recording proxy in front of a hand-written upstream (a `ping`
 * answered as JSON, a `tools/call` answered as an event stream with a progress event first), and a trace as
 * `toHar` reads it from those lines.
 */
import type { TraceEntry } from '../../../src/trace/import/opened.js';
import type { MetaLine, RecordLine, TraceLine } from '../../../src/trace/types.js';
import { startRecording, startUpstream } from '../../helpers/http-proxy.js';

/** A trace as toHar reads it, from lines (the first is the meta line). */
export function traceOf(lines: TraceLine[]) {
  const [meta, ...rest] = lines;
  return {
    meta: meta as MetaLine,
    async *lines(): AsyncGenerator<TraceEntry> {
      for (const line of rest) yield { line: line as RecordLine, file: 'trace.jsonl', lineNo: 0, segment: 0 };
    },
  };
}

export interface SessionOptions {
  /** Headers the client adds to both requests. */
  headers?: Record<string, string>;
  /** How long the upstream waits before it answers the ping, and before the stream's last event (ms). */
  pingDelayMs?: number;
  tailDelayMs?: number;
}

/** Records the ping and the streamed call through the proxy; resolves to the trace's lines and the upstream URL. */
export async function recordSession(
  options: SessionOptions = {},
): Promise<{ lines: TraceLine[]; upstreamUrl: string }> {
  const later = (ms: number | undefined, act: () => void) => (ms ? setTimeout(act, ms) : act());
  const upstream = await startUpstream((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string };
      if (body.method === 'ping') {
        later(options.pingDelayMs, () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: {} }));
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'id: e1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
      );
      later(options.tailDelayMs, () =>
        res.end(`id: e2\ndata: {"jsonrpc":"2.0","id":${body.id},"result":{"content":[]}}\n\n`),
      );
    });
  });
  const upstreamUrl = `${upstream.origin}/mcp`;
  const recording = await startRecording(upstreamUrl);
  const post = (body: string) =>
    fetch(recording.proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...options.headers,
      },
      body,
    }).then((r) => r.text());
  await post('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  await post(
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":1}}}',
  );
  await recording.stop();
  await upstream.close();
  return { lines: recording.sink.lines, upstreamUrl };
}
