import type { HttpLine, TraceLine } from '../../trace/types.js';

/**
 * What an HTTP recording says about the paths that are not MCP: OAuth metadata (`/.well-known/oauth-*`), an
 * `/authorize` or `/register` endpoint, a health check. The recording proxy keeps only their envelopes (method,
 * URL, status, headers), so replay answers them with the recorded status and content type: a client that probes
 * for OAuth metadata gets the server's 404 and goes on without authorization, as it did live.
 */

/** One recorded answer to a request on a path that carried no MCP message. */
export interface RecordedHttpAnswer {
  method: string;
  /** The URL's path, without query. */
  path: string;
  status: number;
  /** Only what describes the body or the challenge (`content-type`, `www-authenticate`, `allow`, `location`). */
  headers: Record<string, string>;
}

/** The response headers replay passes on: the rest describe the recording's connection, not the answer. */
const KEPT_HEADERS = ['content-type', 'www-authenticate', 'allow', 'location', 'cache-control'];

interface OpenRequest {
  method: string;
  path: string;
}

/**
 * Collects the answers to non-MCP requests from trace lines: an exchange (`stream`) counts as MCP when a message
 * line travelled on it, and every path that carried one is an MCP path whatever else was sent to it.
 *
 * @example
 * const answers = new HttpAnswerCollector();
 * for (const line of lines) answers.push(line);
 * answers.finish() // → [{ method: 'GET', path: '/.well-known/oauth-protected-resource', status: 404, headers: {…} }]
 */
export class HttpAnswerCollector {
  private readonly requests = new Map<string, OpenRequest>();
  private readonly answers = new Map<string, RecordedHttpAnswer & { stream: string }>();
  private readonly mcpStreams = new Set<string>();

  push(line: TraceLine): void {
    if (line.type === 'http') {
      this.http(line);
      return;
    }
    if (line.type === undefined && typeof line.stream === 'string') this.mcpStreams.add(line.stream);
  }

  /** The first recorded answer per method and path, MCP paths left out. */
  finish(): RecordedHttpAnswer[] {
    const mcpPaths = new Set<string>();
    for (const stream of this.mcpStreams) {
      const request = this.requests.get(stream);
      if (request !== undefined) mcpPaths.add(request.path);
    }
    const out: RecordedHttpAnswer[] = [];
    for (const { stream, ...answer } of this.answers.values()) {
      if (this.mcpStreams.has(stream) || mcpPaths.has(answer.path)) continue;
      out.push(answer);
    }
    return out;
  }

  private http(line: HttpLine): void {
    const stream = typeof line.stream === 'string' ? line.stream : undefined;
    if (stream === undefined) return;
    if (line.dir === 'in' && typeof line.method === 'string' && typeof line.url === 'string') {
      const path = pathOf(line.url);
      if (path !== undefined) this.requests.set(stream, { method: line.method.toUpperCase(), path });
      return;
    }
    const request = this.requests.get(stream);
    if (line.dir !== 'out' || typeof line.status !== 'number' || request === undefined) return;
    const key = `${request.method} ${request.path}`;
    if (this.answers.has(key)) return;
    this.answers.set(key, { ...request, status: line.status, headers: keptHeaders(line.headers), stream });
  }
}

/**
 * The recorded answer for a live request, or undefined.
 *
 * @example findHttpAnswer(answers, 'GET', '/.well-known/oauth-protected-resource?x=1')?.status // → 404
 */
export function findHttpAnswer(
  answers: readonly RecordedHttpAnswer[] | undefined,
  method: string,
  url: string,
): RecordedHttpAnswer | undefined {
  if (answers === undefined || answers.length === 0) return undefined;
  const path = url.split('?', 1)[0] ?? url;
  const wanted = method.toUpperCase();
  return answers.find((answer) => answer.method === wanted && answer.path === path);
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url, 'http://recorded.invalid').pathname;
  } catch {
    return undefined;
  }
}

function keptHeaders(headers: HttpLine['headers'] | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (!KEPT_HEADERS.includes(lower)) continue;
    kept[lower] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}
