import WebSocket from 'ws';
import { type Loose, sampleTrace } from './helpers.js';

/** Websocket clients for the tests of the collector's live socket. */

/** A websocket client that keeps every frame and how the socket ended. */
export function watch(url: string, options: { protocols?: string[]; headers?: Record<string, string> } = {}) {
  const frames: Loose[] = [];
  const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
  let pings = 0;
  const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
  const refused = new Promise<number>((resolve) =>
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
  );
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  ws.on('ping', () => {
    pings += 1;
  });
  ws.on('error', () => {});
  const until = async (predicate: () => boolean, what: string) => {
    const deadline = Date.now() + 10_000;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(frames).slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    ws,
    frames,
    closed,
    refused,
    pings: () => pings,
    until,
    seqs: () =>
      frames.filter((f) => f.type === 'lines').flatMap((f) => f.lines.map((l: { seq: number }) => l.seq)),
    opened: () =>
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('close', () => reject(new Error('closed before open')));
      }),
  };
}

export const wsUrl = (http: string, path: string) => `${http.replace(/^http/, 'ws')}${path}`;

/** Lines of sampleTrace split into meta, records and end. */
export function parts(calls: number) {
  const lines = sampleTrace({ calls }).trimEnd().split('\n');
  return { meta: lines[0]!, records: lines.slice(1, -1), end: lines[lines.length - 1]! };
}
