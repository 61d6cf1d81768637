import { decodeHeaderValue } from '../../trace/header-value.js';
import { isObject, type JsonObject, type RpcItem } from '../../trace/jsonrpc.js';
import type { HttpLine, Json } from '../../trace/types.js';
import type { RuleContext } from './context.js';

/**
 * The 2026-07-28 Streamable HTTP routing headers against the body they came with. `Mcp-Method` repeats the method
 * (required on every request); `Mcp-Name` repeats `params.name` (tools/call, prompts/get), `params.uri`
 * (resources/read) or `params.taskId` (tasks/*); `Mcp-Param-{Name}` repeats a tools/call argument whose property in
 * the tool's `inputSchema` carries `"x-mcp-header": "{Name}"` — the header is named by the annotation, not by the
 * argument, and is expected only when the argument has a value. Values that are not plain ASCII ride as
 * `=?base64?…?=`; numbers compare as numbers, booleans as `true`/`false`.
 */

/** One `x-mcp-header` annotation of a tool's inputSchema: the header's name and the argument's path. */
export interface ParamHeader {
  name: string;
  path: string[];
  type: string | undefined;
}

type Headers = HttpLine['headers'];

const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The `x-mcp-header` annotations of an inputSchema, reached through `properties` only (the places the
 * specification allows them; a tool annotated elsewhere is invalid and clients drop it, so none are taken).
 *
 * @example paramHeaders({ properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } }) // → [{ name: 'Region', path: ['region'], type: 'string' }]
 */
export function paramHeaders(schema: Json | undefined, path: string[] = []): ParamHeader[] {
  if (!isObject(schema)) return [];
  const found: ParamHeader[] = [];
  const own = schema['x-mcp-header'];
  if (typeof own === 'string' && path.length > 0)
    found.push({ name: own, path, type: typeof schema.type === 'string' ? schema.type : undefined });
  if (isObject(schema.properties))
    for (const [key, child] of Object.entries(schema.properties))
      found.push(...paramHeaders(child, [...path, key]));
  return found;
}

/**
 * Every way the routing headers of a 2026-era request disagree with its body, one sentence each.
 *
 * @example routingProblems({ 'mcp-method': 'tools/list' }, request, undefined) // → ['the Mcp-Method header names "tools/list" but the body calls "tools/call"']
 */
export function routingProblems(
  headers: Headers,
  item: RpcItem,
  params: ParamHeader[] | undefined,
): string[] {
  if (item.kind !== 'request' && item.kind !== 'notification') return [];
  const problems: string[] = [];
  const method = decodeHeaderValue(headerOf(headers, 'mcp-method'));
  if (method === undefined) {
    if (item.kind === 'request') problems.push(`the request "${item.method}" carries no Mcp-Method header`);
  } else if (method !== item.method)
    problems.push(`the Mcp-Method header names "${method}" but the body calls "${item.method}"`);
  const source = NAME_SOURCE[item.method];
  const target = source === undefined ? undefined : item.params?.[source];
  if (item.kind === 'request' && typeof target === 'string') {
    const name = decodeHeaderValue(headerOf(headers, 'mcp-name'));
    if (name === undefined)
      problems.push(`the request "${item.method}" carries no Mcp-Name header for its ${source} "${target}"`);
    else if (name !== target)
      problems.push(`the Mcp-Name header names "${name}" but the body names "${target}"`);
  }
  const version = headerOf(headers, 'mcp-protocol-version');
  const meta = item.params?._meta;
  const claimed = isObject(meta) ? meta[VERSION_KEY] : undefined;
  if (version !== undefined && typeof claimed === 'string' && claimed !== version)
    problems.push(`the MCP-Protocol-Version header names ${version} but _meta names ${claimed}`);
  if (item.kind === 'request' && item.method === 'tools/call' && params !== undefined)
    problems.push(...paramProblems(headers, item.params?.arguments, params));
  return problems;
}

/** Each annotated argument with a value against its `Mcp-Param-{Name}` header. */
function paramProblems(headers: Headers, args: Json | undefined, params: ParamHeader[]): string[] {
  const problems: string[] = [];
  for (const param of params) {
    const body = primitive(valueAt(args, param.path));
    if (body === undefined) continue;
    const header = `Mcp-Param-${param.name}`;
    const sent = headerOf(headers, header.toLowerCase());
    const argument = param.path.join('.');
    if (sent === undefined) {
      problems.push(
        `the argument ${argument} is ${JSON.stringify(body.value)} but the ${header} header is absent`,
      );
      continue;
    }
    const value = decodeHeaderValue(sent);
    if (value === undefined) {
      problems.push(`the ${header} header carries an invalid =?base64?…?= value`);
      continue;
    }
    const numeric = (param.type === 'integer' || param.type === 'number') && typeof body.value === 'number';
    const same = numeric && DECIMAL.test(value) ? Number(value) === body.value : value === body.text;
    if (!same)
      problems.push(
        `the ${header} header says ${JSON.stringify(value)} but the argument ${argument} is ${JSON.stringify(body.value)}`,
      );
  }
  return problems;
}

/** A header's value (the first, if repeated), by lower-case name. */
function headerOf(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  return undefined;
}

function valueAt(root: Json | undefined, path: string[]): Json | undefined {
  let node: Json | undefined = root;
  for (const key of path) node = isObject(node) ? (node as JsonObject)[key] : undefined;
  return node;
}

/** A primitive argument as the header would carry it; null, absent and structured values carry no header. */
function primitive(value: Json | undefined): { value: Json; text: string } | undefined {
  if (typeof value === 'string') return { value, text: value };
  if (typeof value === 'boolean') return { value, text: value ? 'true' : 'false' };
  if (typeof value === 'number' && Number.isFinite(value)) return { value, text: String(value) };
  return undefined;
}

/** Reports each problem of a 2026-era request's routing headers. */
export function checkRoutingHeaders(
  ctx: RuleContext,
  headers: Headers,
  item: RpcItem,
  params: ParamHeader[] | undefined,
): void {
  for (const message of routingProblems(headers, item, params))
    ctx.report({ rule: 'http/routing-header', message });
}
