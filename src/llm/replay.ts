/**
 * `replay --llm`: answers an agent's model calls from a recording, without the provider. Streamed answers are
 * played event by event with their recorded text; a request nothing recorded matches gets an error shaped as the
 * provider's and is listed at the end.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOn } from '../base/listen.js';
import { allowedHosts, checkLocalRequest } from '../proxy/http/guard.js';
import { type CompiledRules, redactJson } from '../redact/index.js';
import type { Json } from '../trace/types.js';
import { providerError } from './errors.js';
import { LlmIndex, type LlmMiss, llmKey } from './match.js';
import type { LlmCall } from './read.js';
import type { LlmResponseLine } from './types.js';

export interface LlmReplayOptions {
  calls: readonly LlmCall[];
  host?: string;
  port?: number;
  allowHosts?: readonly string[];
  /** The rules the recording was redacted by: live requests are redacted alike before they are matched. */
  compiled?: CompiledRules;
  /** `recorded`: events keep their recorded spacing; `none` (default): as fast as the client reads. */
  timing?: 'none' | 'recorded';
  /** Serve the last answer of a request again once its recorded answers are used up (default false). */
  repeat?: boolean;
  /** Told of each miss as it happens. */
  onMiss?: (miss: LlmMiss) => void;
}

export interface LlmReplay {
  readonly url: string;
  readonly port: number;
  /** Calls answered from the recording so far. */
  readonly served: () => number;
  readonly misses: readonly LlmMiss[];
  unused(): LlmCall[];
  close(): Promise<void>;
}

/** Headers a replayed answer does not repeat: the body is sent decoded and framed anew. */
const DROP = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
]);

/**
 * Starts the replayer on 127.0.0.1 (port 0 by default: a free one).
 *
 * @example const replay = await startLlmReplay({ calls: await readLlmCalls('agent-llm.jsonl') });
 * // new Anthropic({ baseURL: replay.url })
 */
export async function startLlmReplay(options: LlmReplayOptions): Promise<LlmReplay> {
  const index = new LlmIndex(options.calls, options.repeat === true);
  const allow = allowedHosts(options.allowHosts ?? []);
  let served = 0;
  const server = createServer((req, res) => {
    const refused = checkLocalRequest(req.headers.host, req.headers.origin, allow);
    if (refused !== undefined) {
      res
        .writeHead(403, { 'content-type': 'application/json' })
        .end(providerError(req.url ?? '/', 403, refused));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answered = answer(req, res, Buffer.concat(chunks).toString('utf8'), index, options);
      if (answered) served += 1;
    });
  });
  const address = await listenOn(
    server,
    options.host ?? '127.0.0.1',
    options.port ?? 0,
    'pick another with --listen HOST:PORT (port 0 picks a free one)',
  );
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    served: () => served,
    misses: index.misses,
    unused: () => index.unused(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers one request from the recording; false when it was a miss. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  text: string,
  index: LlmIndex,
  options: LlmReplayOptions,
): boolean {
  const method = req.method ?? 'GET';
  const path = req.url ?? '/';
  let body: Json | undefined;
  try {
    body = text === '' ? undefined : (JSON.parse(text) as Json);
  } catch {
    body = undefined;
  }
  if (body !== undefined && options.compiled) body = redactJson(body, options.compiled);
  const wantsStream = (body as { stream?: unknown } | undefined)?.stream === true;
  const key = llmKey(method, path, body, body === undefined ? text : undefined);
  const call = index.take(key, method, path);
  const recorded = call?.answer;
  if (recorded === undefined || (recorded.events !== undefined) !== wantsStream) {
    if (recorded !== undefined) {
      index.misses.push({ method, path, nearest: `${key} (recorded ${wantsStream ? 'not ' : ''}streamed)` });
    }
    const miss = index.misses[index.misses.length - 1]!;
    options.onMiss?.(miss);
    const why =
      recorded !== undefined
        ? `the recorded answer to this request was ${wantsStream ? 'not streamed' : 'streamed'}; ask for it the same way`
        : miss.nearest === undefined
          ? `nothing was recorded for ${method} ${path.split('?')[0]}`
          : 'it differs from every recorded request on this path';
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(providerError(path, 404, `tapedeck replay: no recorded answer matches this request: ${why}`));
    return false;
  }
  play(res, recorded, options.timing ?? 'none');
  return true;
}

function play(res: ServerResponse, recorded: LlmResponseLine, timing: 'none' | 'recorded'): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(recorded.headers)) if (!DROP.has(name)) headers[name] = value;
  res.writeHead(recorded.status, headers);
  if (recorded.events === undefined) {
    const body = recorded.body !== undefined ? JSON.stringify(recorded.body) : (recorded.text ?? '');
    res.end(body);
    return;
  }
  const events = recorded.events;
  if (timing === 'none') {
    for (const event of events) res.write(event.text);
    res.end();
    return;
  }
  const started = Date.now();
  let i = 0;
  const next = () => {
    while (i < events.length && events[i]!.ms - events[0]!.ms <= Date.now() - started)
      res.write(events[i++]!.text);
    if (i >= events.length) return void res.end();
    setTimeout(next, Math.max(0, events[i]!.ms - events[0]!.ms - (Date.now() - started)));
  };
  next();
}
