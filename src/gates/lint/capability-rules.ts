import { isObject, type JsonObject, type RpcItem } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { RuleContext } from './context.js';
import { MODERN_VERSION } from './session.js';

/** Server → client requests, and the client capability each needs. */
const CLIENT_FEATURES: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
  'elicitation/create': 'elicitation',
};

/** Client requests that use a server feature, by method prefix, and the capability it needs. */
const SERVER_FEATURES: readonly [string, string][] = [
  ['tools/', 'tools'],
  ['prompts/', 'prompts'],
  ['resources/', 'resources'],
  ['logging/', 'logging'],
  ['completion/', 'completions'],
];

/** Server notifications, and the capability path each needs. */
const SERVER_NOTIFICATIONS: Readonly<Record<string, string[]>> = {
  'notifications/tools/list_changed': ['tools', 'listChanged'],
  'notifications/prompts/list_changed': ['prompts', 'listChanged'],
  'notifications/resources/list_changed': ['resources', 'listChanged'],
  'notifications/resources/updated': ['resources', 'subscribe'],
  'notifications/message': ['logging'],
};

/** Features the 2026-07-28 revision deprecates, by method. */
const DEPRECATED: Readonly<Record<string, string>> = {
  'roots/list': 'roots',
  'notifications/roots/list_changed': 'roots',
  'sampling/createMessage': 'sampling',
  'logging/setLevel': 'logging',
  'notifications/message': 'logging',
};

function declared(caps: JsonObject, path: readonly string[]): boolean {
  let node: Json | undefined = caps;
  for (const key of path) {
    if (!isObject(node)) return false;
    node = node[key];
  }
  return node !== undefined && node !== false && node !== null;
}

/** A server request the client has no capability for (also those a 2026-era `input_required` result embeds). */
export function checkClientCapability(ctx: RuleContext, method: string, how = 'sent'): void {
  const needed = CLIENT_FEATURES[method];
  const caps = ctx.session.clientCaps;
  if (needed === undefined || caps === undefined || declared(caps, [needed])) return;
  ctx.report({
    rule: 'capabilities/client',
    message: `the server ${how} "${method}", but the client did not declare the "${needed}" capability`,
  });
}

/** The requests a 2026-era `input_required` result asks the client to answer. */
export function checkInputRequests(ctx: RuleContext, result: Json | undefined): void {
  if (!isObject(result) || result.resultType !== 'input_required' || !isObject(result.inputRequests)) return;
  for (const request of Object.values(result.inputRequests))
    if (isObject(request) && typeof request.method === 'string')
      checkClientCapability(ctx, request.method, 'asked for input with');
}

/** A server notification that needs a capability the server did not declare. */
export function checkServerNotification(ctx: RuleContext, method: string): void {
  const path = SERVER_NOTIFICATIONS[method];
  const caps = ctx.session.serverCaps;
  if (path === undefined || caps === undefined || declared(caps, path)) return;
  ctx.report({
    rule: 'capabilities/server',
    message: `the server sent "${method}" without declaring the "${path.join('.')}" capability`,
  });
}

/** A client request the server answered with a result although it did not declare the feature. */
export function checkServerFeature(ctx: RuleContext, method: string): void {
  const caps = ctx.session.serverCaps;
  const feature = SERVER_FEATURES.find(([prefix]) => method.startsWith(prefix))?.[1];
  if (feature === undefined || caps === undefined || declared(caps, [feature])) return;
  ctx.report({
    rule: 'capabilities/server',
    message: `the server answered "${method}" without declaring the "${feature}" capability`,
  });
}

/** A feature the 2026-07-28 revision deprecates, used in a session of that revision or later. */
export function checkDeprecated(ctx: RuleContext, item: RpcItem): void {
  if (item.kind !== 'request' && item.kind !== 'notification') return;
  const feature = DEPRECATED[item.method];
  const version = ctx.session.version;
  if (feature === undefined || version === undefined || version < MODERN_VERSION) return;
  ctx.report({
    rule: 'deprecated/feature',
    message: `"${item.method}" uses ${feature}, which protocol version ${version} deprecates`,
  });
}
