import type { RpcId } from '../../../trace/jsonrpc.js';
import type { Json } from '../../../trace/types.js';
import type { HttpRequestLike, HttpResponseLike } from './http-types.js';

/**
 * Small pieces of HTTP: reading a bounded body, and answering with a JSON-RPC error body and a status, the way the
 * SDK's servers answer requests they turn away at the transport (`{"jsonrpc":"2.0","error":{…},"id":null}`).
 */

export type Body = { kind: 'ok'; text: string } | { kind: 'too-large' } | { kind: 'failed' };

/** Reads the whole request body as UTF-8; stops reading (and says so) past `maxBytes`. */
export function readBody(req: HttpRequestLike, maxBytes: number): Promise<Body> {
  return new Promise((resolve) => {
    const decoder = new TextDecoder();
    let text = '';
    let size = 0;
    let settled = false;
    const settle = (body: Body) => {
      if (settled) return;
      settled = true;
      resolve(body);
    };
    req.on('data', (chunk) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > maxBytes) {
        settle({ kind: 'too-large' });
        req.resume();
        return;
      }
      text += decoder.decode(chunk, { stream: true });
    });
    req.on('end', () => settle({ kind: 'ok', text: text + decoder.decode() }));
    req.on('error', () => settle({ kind: 'failed' }));
  });
}

/**
 * Reads a POST's JSON body, or turns the request away itself (413 past `maxBytes`, 400 -32700 for bad JSON) and
 * gives undefined; undefined too when the body could not be read at all.
 */
export async function readJsonBody(
  req: HttpRequestLike,
  maxBytes: number,
  reject: (status: number, code: number, message: string) => void,
): Promise<Json | undefined> {
  const body = await readBody(req, maxBytes);
  if (body.kind === 'failed') return undefined;
  if (body.kind === 'too-large') {
    reject(413, -32000, `Payload Too Large: the body exceeds ${maxBytes} bytes`);
    return undefined;
  }
  try {
    return JSON.parse(body.text) as Json;
  } catch {
    reject(400, -32700, 'Parse error: Invalid JSON');
    return undefined;
  }
}

/** Answers `status` with a JSON-RPC error body. */
export function sendError(
  res: HttpResponseLike,
  status: number,
  code: number,
  message: string,
  options: { id?: RpcId | null; headers?: Record<string, string> } = {},
): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json', ...options.headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: options.id ?? null }));
}

/** Answers `status` with no body. */
export function sendEmpty(res: HttpResponseLike, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(status, headers);
  res.end();
}

/** What an `Accept` header allows: `*` and a missing header allow both. */
export function accepts(value: string | undefined): { sse: boolean; json: boolean } {
  if (value === undefined || value.trim() === '') return { sse: true, json: true };
  const types = value.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const any = types.includes('*/*');
  return {
    sse: any || types.includes('text/event-stream') || types.includes('text/*'),
    json: any || types.includes('application/json') || types.includes('application/*'),
  };
}

/** True for `application/json` with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(value: string | undefined): boolean {
  return value?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}
