import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthSide, ProxyNotice } from '../http/context.js';
import { forwardableHeaders, traceHeaders } from '../http/headers.js';
import type { RecordQueue } from '../http/later.js';
import type { HttpRecorder } from '../http/recorder.js';
import { type McpAnswerFacts, type McpAnswerOutcome, mcpAnswer } from './challenge.js';
import { type EndpointKind, rewriteResourceMetadata, rewriteServerMetadata } from './documents.js';
import { failureReason, formFields, hideSecrets, jsonObject, mapFormResource } from './facts.js';
import { MOUNT_PREFIX, OAuthMounts } from './mounts.js';
import { hideUrlSecrets, OAuthSecrets } from './secrets.js';
import { type OAuthStep, stepOfPath } from './steps.js';

/** What an OAuth gateway needs from its proxy. */
export interface OAuthGatewayOptions {
  upstream: URL;
  recorder: HttpRecorder;
  later: RecordQueue;
  notice: (notice: ProxyNotice) => void;
  /** Markers for the flow's secrets (a fresh random key by default). */
  secrets?: OAuthSecrets;
  /**
   * The headers the user asked to add (`--header`), meant for the MCP server: added to OAuth requests on the
   * upstream's own origin only, and never as `Authorization` (there it carries the OAuth client's credentials).
   */
  addHeaders?: Readonly<Record<string, string>>;
}

/** The largest OAuth request or answer body the gateway reads (they are small forms and documents). */
const MAX_BODY = 1024 * 1024;

/** An upstream answer, read whole. */
interface Answer {
  /** The URL asked. */
  url: string;
  status: number;
  headers: string[];
  body: Buffer;
}

/**
 * The OAuth side of a recording proxy. It serves the upstream's protected-resource metadata naming the proxy as the
 * resource, serves authorization-server metadata naming the proxy's mount of each endpoint, maps the `resource`
 * parameter of authorization and token requests back to the upstream's own URL (so the upstream receives tokens
 * issued for itself), sends the browser on to the real authorization endpoint, and passes registration, PKCE and
 * refresh through untouched. Every step is recorded as an HTTP envelope plus an `oauth` event whose secrets are
 * stable hashes.
 *
 * @example if (gateway.claims(path)) void gateway.serve(req, res);
 */
export class OAuthGateway implements OAuthSide {
  readonly mounts: OAuthMounts;
  readonly secrets: OAuthSecrets;
  /** Endpoint paths on the proxy learned from authorization-server metadata, and their kinds. */
  private readonly endpoints = new Map<string, EndpointKind>();
  /** Markers of the Bearer tokens whose first use was recorded. */
  readonly seen = new Set<string>();
  /** The OAuth requests being answered, so that shutdown can wait for them. */
  private readonly open = new Set<Promise<void>>();
  /** Aborted when shutdown stops waiting: the requests still out to an OAuth server end as 502s. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: OAuthGatewayOptions) {
    this.mounts = new OAuthMounts(options.upstream);
    this.secrets = options.secrets ?? new OAuthSecrets();
  }

  /** Reads an MCP answer (see mcpAnswer). */
  mcpAnswer(facts: McpAnswerFacts): McpAnswerOutcome {
    return mcpAnswer(this, facts);
  }

  /** True when a request path is OAuth traffic the gateway answers (never the MCP path itself). */
  claims(path: string): boolean {
    const pathname = path.split('?', 1)[0]!;
    if (pathname === this.options.upstream.pathname) return false;
    return (
      stepOfPath(pathname, undefined) !== 'other' ||
      pathname.startsWith(MOUNT_PREFIX) ||
      this.endpoints.has(pathname)
    );
  }

  /** Answers one OAuth request; never rejects (a failure becomes a 502 and an event). */
  serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const task = this.answer(req, res);
    this.open.add(task);
    void task.finally(() => this.open.delete(task));
    return task;
  }

  /** How many OAuth requests are being answered. */
  get pending(): number {
    return this.open.size;
  }

  /**
   * Shutdown: waits for the OAuth requests being answered until `enough` settles, then cuts those still out to an
   * OAuth server short (each answered 502 and recorded as such) and resolves once every one is recorded.
   */
  async settle(enough: Promise<unknown>): Promise<void> {
    if (this.open.size === 0) return;
    await Promise.race([Promise.allSettled([...this.open]), enough]);
    this.stopping.abort(new Error('the proxy is shutting down'));
    await Promise.allSettled([...this.open]);
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? '/';
    const origin = `http://${req.headers.host}`;
    const step = stepOfPath(path.split('?', 1)[0]!, this.endpoints.get(path.split('?', 1)[0]!));
    const mounted = this.mounts.toTarget(path);
    const record = this.options.recorder.exchange({
      method: req.method ?? 'GET',
      url: hideUrlSecrets(mounted?.target.href ?? path, this.secrets),
      headers: hiddenHeaders(traceHeaders(req.rawHeaders), this.secrets),
      record: 'envelope',
    });
    const event = (fields: Record<string, unknown>) =>
      this.options.later.push(() => record.event('oauth', fields));
    try {
      const body = await readBody(req);
      if (mounted === undefined) {
        this.reply(res, 404, JSON.stringify({ error: 'not_found' }), record);
        event({
          step,
          status: 404,
          ok: false,
          reason: `no OAuth server is mounted at ${path.split('?', 1)[0]}`,
        });
        return;
      }
      if (step === 'authorize') {
        this.authorize(mounted.target, origin, res, record, event);
        return;
      }
      const sent = step === 'token' ? this.mapTokenBody(body.toString('utf8'), origin) : body;
      const answer = await this.forward(req, mounted.target, sent);
      const out = this.rewrite(step, answer, origin);
      this.options.later.push(() => record.response(answer.status, traceHeaders(answer.headers)));
      res.writeHead(answer.status, [...out.headers, 'Content-Length', String(out.body.length)]);
      res.end(out.body);
      event(this.facts(step, req, body, answer, out.extra));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent)
        this.reply(
          res,
          502,
          JSON.stringify({ error: 'server_error', error_description: `tapedeck: ${message}` }),
          record,
        );
      else res.destroy();
      event({ step, status: 502, ok: false, reason: `the OAuth server could not be reached: ${message}` });
    } finally {
      this.options.later.push(() => record.close());
    }
  }

  /** The browser goes to the real authorization endpoint, `resource` mapped back to the upstream's URL. */
  private authorize(
    target: URL,
    origin: string,
    res: ServerResponse,
    record: ReturnType<HttpRecorder['exchange']>,
    event: (fields: Record<string, unknown>) => void,
  ): void {
    const url = new URL(target.href);
    const asked = url.searchParams.getAll('resource');
    if (asked.length > 0) {
      url.searchParams.delete('resource');
      for (const value of asked)
        url.searchParams.append('resource', this.mounts.upstreamResource(value, origin));
    }
    res.writeHead(302, { location: url.href, 'content-length': '0' });
    res.end();
    const shown = hideUrlSecrets(url.href, this.secrets);
    this.options.later.push(() => record.localAnswer(302, { location: shown }, ''));
    this.options.notice({ kind: 'oauth-browser', status: 302, path: `${url.origin}${url.pathname}` });
    const query = hideSecrets(Object.fromEntries(url.searchParams), this.secrets);
    const resource =
      asked.length > 0 ? { asked: asked[0], sent: url.searchParams.get('resource') } : undefined;
    event({
      step: 'authorize',
      status: 302,
      ok: true,
      to: `${url.origin}${url.pathname}`,
      request: query,
      ...(resource ? { resource } : {}),
    });
  }

  /** A token request's body with `resource` mapped back to the upstream's URL. */
  private mapTokenBody(body: string, origin: string): Buffer {
    return Buffer.from(mapFormResource(body, (value) => this.mounts.upstreamResource(value, origin)));
  }

  private async forward(req: IncomingMessage, target: URL, body: Buffer): Promise<Answer> {
    const headers = this.withAddedHeaders(
      target,
      forwardableHeaders(req.rawHeaders, ['content-length', 'accept-encoding']),
    );
    const init: RequestInit = {
      method: req.method ?? 'GET',
      headers: pairs(headers),
      redirect: 'manual',
      signal: this.stopping.signal,
    };
    if (body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD') init.body = body;
    const response = await fetch(target, init);
    const raw: string[] = [];
    response.headers.forEach((value, name) => {
      if (
        name === 'set-cookie' ||
        /^(content-encoding|content-length|transfer-encoding|connection|keep-alive)$/.test(name)
      )
        return;
      raw.push(name, value);
    });
    for (const cookie of response.headers.getSetCookie()) raw.push('set-cookie', cookie);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > MAX_BODY) throw new Error(`its answer is larger than ${MAX_BODY} bytes`);
    return { url: target.href, status: response.status, headers: raw, body: bytes };
  }

  /**
   * The user's added headers, for a request to the upstream's own origin: they replace the client's of the same
   * name, as on the MCP path. An authorization server elsewhere is another party: what was meant for the MCP
   * server is not sent there.
   */
  private withAddedHeaders(target: URL, headers: string[]): string[] {
    const added = Object.entries(this.options.addHeaders ?? {}).filter(
      ([name]) => name.toLowerCase() !== 'authorization',
    );
    if (added.length === 0 || target.origin !== this.options.upstream.origin) return headers;
    const names = new Set(added.map(([name]) => name.toLowerCase()));
    const kept: string[] = [];
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (!names.has(headers[i]!.toLowerCase())) kept.push(headers[i]!, headers[i + 1]!);
    return [...kept, ...added.flat()];
  }

  /** The answer the client gets: metadata documents rewritten to name the proxy, anything else as it came. */
  private rewrite(
    step: OAuthStep,
    answer: Answer,
    origin: string,
  ): Answer & { extra: Record<string, unknown> } {
    const extra: Record<string, unknown> = {};
    const doc = answer.status === 200 ? jsonObject(answer.body.toString('utf8')) : undefined;
    if (doc === undefined || (step !== 'resource-metadata' && step !== 'server-metadata')) {
      const location = headerOf(answer.headers, 'location');
      if (location === undefined) return { ...answer, extra };
      extra.location = hideUrlSecrets(location, this.secrets);
      // A metadata document that moved stays behind the proxy: the client must read the rewritten one.
      if (step !== 'resource-metadata' && step !== 'server-metadata') return { ...answer, extra };
      const moved = this.mounts.toProxy(new URL(location, answer.url).href, origin);
      const headers = answer.headers.map((value, i) =>
        i % 2 === 1 && answer.headers[i - 1]!.toLowerCase() === 'location' ? moved : value,
      );
      return { ...answer, headers, extra };
    }
    let rewritten: Record<string, unknown>;
    if (step === 'resource-metadata') {
      const result = rewriteResourceMetadata(doc, this.mounts, origin);
      rewritten = result.doc;
      if (result.resource)
        extra.resource = { asked: result.resource.proxy, upstream: result.resource.upstream };
      extra.authorizationServers = doc.authorization_servers;
      if (result.binding !== undefined) {
        extra.binding = result.binding;
        this.options.notice({ kind: 'oauth-bound', status: 200, path: result.binding });
      } else {
        this.options.notice({ kind: 'oauth', status: answer.status, path: new URL(answer.url).pathname });
      }
    } else {
      rewritten = rewriteServerMetadata(doc, this.mounts, origin, (path, kind) =>
        this.endpoints.set(path, kind),
      );
      extra.issuer = doc.issuer;
    }
    const body = Buffer.from(JSON.stringify(rewritten));
    return { ...answer, body, extra };
  }

  /** The `oauth` event of a forwarded step. */
  private facts(
    step: OAuthStep,
    req: IncomingMessage,
    body: Buffer,
    answer: Answer,
    extra: Record<string, unknown>,
  ): Record<string, unknown> {
    const text = answer.body.toString('utf8');
    const doc = jsonObject(text);
    const fields: Record<string, unknown> = { step, status: answer.status, ok: answer.status < 400 };
    const form = (req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded');
    const sent =
      body.length === 0
        ? undefined
        : form
          ? formFields(body.toString('utf8'))
          : jsonObject(body.toString('utf8'));
    if (step === 'token' && sent?.grant_type === 'refresh_token') fields.step = 'refresh';
    if (sent !== undefined) fields.request = hideSecrets(sent, this.secrets);
    if (sent !== undefined && typeof sent.resource === 'string') {
      fields.resource = {
        asked: sent.resource,
        sent: this.mounts.upstreamResource(sent.resource, `http://${req.headers.host}`),
      };
    }
    const auth = this.secrets.authorization(req.headers.authorization);
    if (auth !== undefined) fields.clientAuth = auth;
    if (doc !== undefined && step !== 'resource-metadata' && step !== 'server-metadata')
      fields.response = hideSecrets(doc, this.secrets);
    const reason = failureReason(answer.status, doc);
    if (reason !== undefined) fields.reason = reason;
    return { ...fields, ...extra };
  }

  private reply(
    res: ServerResponse,
    status: number,
    body: string,
    record: ReturnType<HttpRecorder['exchange']>,
  ): void {
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    res.writeHead(status, headers);
    res.end(body);
    this.options.later.push(() => record.localAnswer(status, headers, body));
  }
}

/** Headers for the trace with an Authorization value as its marker (so a client secret sent by Basic is followed). */
function hiddenHeaders(
  headers: Record<string, string | string[]>,
  secrets: OAuthSecrets,
): Record<string, string | string[]> {
  const auth = headers.authorization;
  if (typeof auth !== 'string') return headers;
  return { ...headers, authorization: secrets.authorization(auth) ?? '' };
}

function headerOf(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}

function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error(`the request body is larger than ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    // A client that goes away mid-body (or is cut at shutdown) ends the wait; after `end` this changes nothing.
    req.on('close', () => reject(new Error('the client closed the request before its body ended')));
  });
}
