/**
 * `record --llm URL`: a recording reverse proxy in front of an LLM provider. Bytes move on as they arrive — a
 * streamed answer event by event, never held — and the trace copy is made beside them: one `llm` line for the
 * request, one for the answer (see copy.ts).
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest, Agent as TlsAgent } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { listenOn } from '../base/listen.js';
import { copyDecoder } from '../proxy/http/decode.js';
import { allowedHosts, checkLocalRequest } from '../proxy/http/guard.js';
import { forwardableHeaders } from '../proxy/http/headers.js';
import type { CompiledRules } from '../redact/index.js';
import type { TraceSink } from '../sink/sink.js';
import type { MetaLine } from '../trace/types.js';
import { AnswerCopy, requestLine } from './copy.js';
import { providerError } from './errors.js';
import { apiOfPath } from './types.js';

export interface LlmProxyOptions {
  /** The provider's base URL (`https://api.anthropic.com`); its path is put before every request's path. */
  upstream: URL;
  sink: TraceSink;
  /** Started by the proxy once it listens, so a port in use leaves no trace behind. */
  meta?: MetaLine;
  /** The rules credentials and secrets are hidden by in the trace copy (headers by name, bodies by key and value). */
  compiled?: CompiledRules;
  host?: string;
  port?: number;
  allowHosts?: readonly string[];
  /** Bodies (and streams) longer than this are forwarded whole but recorded without their content. */
  maxMessageBytes?: number;
}

export const LLM_PROXY_DEFAULTS = {
  host: '127.0.0.1',
  port: 7431,
  maxMessageBytes: 16 * 1024 * 1024,
} as const;

export interface LlmProxy {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening; open exchanges finish (up to `graceMs`), then are cut. The sink stays open. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts the proxy.
 *
 * @example const proxy = await startLlmProxy({ upstream: new URL('https://api.anthropic.com'), sink, meta });
 * // the agent: new Anthropic({ baseURL: proxy.url })
 */
export async function startLlmProxy(options: LlmProxyOptions): Promise<LlmProxy> {
  const allow = allowedHosts(options.allowHosts ?? []);
  const secure = options.upstream.protocol === 'https:';
  const agent = secure ? new TlsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
  const context: ExchangeContext = {
    options,
    agent,
    calls: 0,
    maxBytes: options.maxMessageBytes ?? LLM_PROXY_DEFAULTS.maxMessageBytes,
  };
  const server = createServer((req, res) => {
    const refused = checkLocalRequest(req.headers.host, req.headers.origin, allow);
    if (refused !== undefined) {
      res
        .writeHead(403, { 'content-type': 'application/json' })
        .end(providerError(req.url ?? '/', 403, refused));
      return;
    }
    forward(context, req, res);
  });
  const address = await listenOn(
    server,
    options.host ?? LLM_PROXY_DEFAULTS.host,
    options.port ?? LLM_PROXY_DEFAULTS.port,
    'pick another with --listen HOST:PORT (port 0 picks a free one)',
  );
  if (options.meta) options.sink.start(options.meta);
  const host = address.address;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    host,
    port: address.port,
    close: (graceMs = 1000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          agent.destroy();
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

interface ExchangeContext {
  options: LlmProxyOptions;
  agent: Agent;
  calls: number;
  maxBytes: number;
}

/** One exchange: the request forwarded as it arrives, the answer forwarded as it arrives, both copied. */
function forward(context: ExchangeContext, req: IncomingMessage, res: ServerResponse): void {
  const { options } = context;
  context.calls += 1;
  const call = `l${context.calls}`;
  const path = req.url ?? '/';
  const api = apiOfPath(path);
  const startedAt = Date.now();
  const base = options.upstream.pathname.replace(/\/+$/, '');
  const send = options.upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(options.upstream, {
    method: req.method,
    path: `${base}${path}`,
    headers: [...forwardableHeaders(req.rawHeaders), 'Host', options.upstream.host],
    agent: context.agent,
  });
  const requestText = new BodyText(context.maxBytes);
  req.on('data', (chunk: Buffer) => {
    upstream.write(chunk);
    requestText.push(chunk);
  });
  req.on('end', () => {
    upstream.end();
    const line = requestLine(
      {
        call,
        api,
        method: req.method ?? 'GET',
        path,
        headers: req.headers as never,
        body: requestText.text(),
      },
      options.compiled,
    );
    options.sink.append(requestText.truncated ? { ...line, truncated: true } : line);
  });
  let answer: AnswerCopy | undefined;
  let recorded = false;
  const record = (error?: string) => {
    if (recorded) return;
    recorded = true;
    const copy = answer ?? new AnswerCopy(api, 502, {}, startedAt);
    options.sink.append(copy.line(call, options.compiled, error));
  };
  upstream.on('response', (answerRes) => {
    answer = new AnswerCopy(
      api,
      answerRes.statusCode ?? 502,
      answerRes.headers as never,
      startedAt,
      context.maxBytes,
    );
    res.writeHead(
      answerRes.statusCode ?? 502,
      answerRes.statusMessage,
      forwardableHeaders(answerRes.rawHeaders),
    );
    res.flushHeaders();
    const text = new StringDecoder('utf8');
    const copy = answer;
    const decoder = copyDecoder(
      answerRes.headers['content-encoding'],
      (bytes) => copy.push(text.write(bytes)),
      () => {},
    );
    answerRes.on('data', (chunk: Buffer) => {
      res.write(chunk);
      decoder?.write(chunk);
    });
    answerRes.on('end', () => {
      res.end();
      if (decoder === undefined) record('the answer is encoded in a way the trace copy cannot undo');
      else
        decoder.end(() => {
          copy.push(text.end());
          record();
        });
    });
    answerRes.on('error', (err) => record(err.message));
  });
  upstream.on('error', (err) => {
    if (!res.headersSent) {
      res
        .writeHead(502, { 'content-type': 'application/json' })
        .end(providerError(path, 502, `tapedeck could not reach ${options.upstream.origin}: ${err.message}`));
    } else res.destroy();
    record(err.message);
  });
  res.on('close', () => {
    if (!res.writableFinished) {
      upstream.destroy();
      record('the client closed the connection before the answer ended');
    }
  });
}

/** A body's text as it arrives, up to a limit (past it, only its length is known). */
class BodyText {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.max) {
      this.truncated = true;
      this.chunks.length = 0;
    } else this.chunks.push(chunk);
  }
  text(): string {
    return this.truncated ? '' : Buffer.concat(this.chunks).toString('utf8');
  }
}
