import { clip, contentText, count, metaOf, str, who, withoutMeta } from './describe.js';
import {
  formatId,
  isObject,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
  requestTarget,
} from './jsonrpc.js';

/**
 * The `tapedeck show` timeline's detail of a message: what a person scanning a session wants to see next to the
 * method name (arguments, the first line of a tool's answer, a log message), at most DETAIL_MAX characters.
 */

/**
 * The timeline's detail of a request: the interesting part of its params.
 *
 * @example requestDetail({ kind: 'request', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { m: 'hi' } } }) // → '{"m":"hi"}'
 */
export function requestDetail(request: RpcRequest): string {
  const p = request.params;
  switch (request.method) {
    case 'initialize': {
      const version = str(p?.protocolVersion);
      return [who(p?.clientInfo), version && `protocol ${version}`].filter(Boolean).join(' · ');
    }
    case 'server/discover': {
      const meta = metaOf(p);
      const version = str(meta?.['io.modelcontextprotocol/protocolVersion']);
      const client = who(meta?.['io.modelcontextprotocol/clientInfo']);
      return [client, version && `protocol ${version}`].filter(Boolean).join(' · ');
    }
    case 'tools/call': {
      const round = isObject(p?.inputResponses)
        ? ` · answers ${Object.keys(p.inputResponses).join(', ')}`
        : '';
      return clip(withoutMeta(p?.arguments) + round);
    }
    case 'prompts/get':
      return clip(withoutMeta(p?.arguments));
    case 'sampling/createMessage': {
      const messages = Array.isArray(p?.messages) ? p.messages : [];
      const last = messages.at(-1);
      const text = isObject(last) ? contentText(last.content) : undefined;
      return text ? clip(JSON.stringify(text)) : '';
    }
    case 'elicitation/create':
      return clip([str(p?.message), str(p?.url)].filter(Boolean).join(' '));
    case 'logging/setLevel':
      return str(p?.level) ?? '';
    default: {
      if (requestTarget(request) !== undefined) return '';
      return clip(withoutMeta(p));
    }
  }
}

/**
 * The timeline's detail of a response, given the method of the request it answers.
 *
 * @example responseDetail('tools/list', { kind: 'response', id: 1, result: { tools: [] }, error: undefined }) // → '0 tools'
 */
export function responseDetail(method: string, response: RpcResponse): string {
  if (response.error) {
    const code = response.error.code === undefined ? '' : `${response.error.code} `;
    return clip(`${code}${response.error.message}`);
  }
  const r = isObject(response.result) ? response.result : undefined;
  if (!r) return '';
  if (r.resultType === 'input_required') {
    const asks = isObject(r.inputRequests) ? Object.keys(r.inputRequests).join(', ') : '';
    return clip(`input required: ${asks}`);
  }
  switch (method) {
    case 'initialize': {
      const version = str(r.protocolVersion);
      return [who(r.serverInfo), version && `protocol ${version}`].filter(Boolean).join(' · ');
    }
    case 'server/discover': {
      const versions = Array.isArray(r.supportedVersions) ? r.supportedVersions.join(', ') : undefined;
      const server = who(metaOf(r)?.['io.modelcontextprotocol/serverInfo']);
      return [server, versions && `supports ${versions}`].filter(Boolean).join(' · ');
    }
    case 'tools/list':
      return count(r.tools, 'tool') ?? '';
    case 'resources/list':
      return count(r.resources, 'resource') ?? '';
    case 'resources/templates/list':
      return count(r.resourceTemplates, 'template') ?? '';
    case 'prompts/list':
      return count(r.prompts, 'prompt') ?? '';
    case 'roots/list':
      return count(r.roots, 'root') ?? '';
    case 'prompts/get':
      return count(r.messages, 'message') ?? '';
    case 'resources/read': {
      const first = Array.isArray(r.contents) && isObject(r.contents[0]) ? r.contents[0] : undefined;
      const mime = str(first?.mimeType);
      return [count(r.contents, 'content'), mime].filter(Boolean).join(' · ');
    }
    case 'sampling/createMessage': {
      const text = contentText(r.content);
      return clip([str(r.model), text && JSON.stringify(text)].filter(Boolean).join(': '));
    }
    case 'elicitation/create': {
      const fields = isObject(r.content) ? ` ${Object.keys(r.content).join(', ')}` : '';
      return clip(`${str(r.action) ?? ''}${fields}`);
    }
    case 'tools/call':
      return clip(contentText(r.content) ?? withoutMeta(r.structuredContent));
    default:
      return clip(withoutMeta(r));
  }
}

/** How much of an error's message the timeline shows: all of any real one (it wraps), a bound on a runaway one. */
export const ERROR_MAX = 2000;

/**
 * What a failed answer says, in full up to ERROR_MAX characters: a JSON-RPC error's code and message, or the text
 * of a tool result marked `isError`; undefined for an answer that did not fail.
 *
 * @example errorDetail({ kind: 'response', id: 1, result: undefined, error: { code: -32602, message: 'Unknown tool' } }) // → '-32602 Unknown tool'
 */
export function errorDetail(response: RpcResponse): string | undefined {
  if (response.error) {
    const code = response.error.code === undefined ? '' : `${response.error.code} `;
    return clip(`${code}${response.error.message}`, ERROR_MAX);
  }
  const r = isObject(response.result) ? response.result : undefined;
  if (r?.isError !== true) return undefined;
  return clip(contentText(r.content) ?? withoutMeta(r.structuredContent), ERROR_MAX);
}

/**
 * The timeline's detail of a notification.
 *
 * @example notificationDetail({ kind: 'notification', method: 'notifications/progress', params: { progress: 1, total: 4 } }) // → '1/4'
 */
export function notificationDetail(notification: RpcNotification): string {
  const p = notification.params;
  switch (notification.method) {
    case 'notifications/progress': {
      const progress = typeof p?.progress === 'number' ? String(p.progress) : '?';
      const total = typeof p?.total === 'number' ? `/${p.total}` : '';
      const message = str(p?.message);
      return clip(`${progress}${total}${message ? ` ${message}` : ''}`);
    }
    case 'notifications/message': {
      const data = typeof p?.data === 'string' ? p.data : withoutMeta(p?.data);
      const logger = str(p?.logger);
      return clip(`${str(p?.level) ?? ''}${logger ? ` [${logger}]` : ''} ${data}`);
    }
    case 'notifications/cancelled': {
      const id = p?.requestId;
      const reason = str(p?.reason);
      const which = typeof id === 'string' || typeof id === 'number' ? `request ${formatId(id)}` : '';
      return clip([which, reason].filter(Boolean).join(' · '));
    }
    default:
      if (requestTarget(notification) !== undefined) return '';
      return clip(withoutMeta(p));
  }
}
