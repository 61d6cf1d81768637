/**
 * The schema of each MCP method, per protocol era, from the official SDKs (no package ships the specification's own
 * schema.json): `@modelcontextprotocol/sdk` (v1) for the versions of the `initialize` era, 2024-11-05 … 2025-11-25,
 * and `@modelcontextprotocol/core` (v2) for 2026-07-28. Both are loaded on first use, each only when a trace has a
 * session of its era.
 */

/** What checks a message: the subset of a zod schema lint uses. */
interface ZodLike {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ZodIssue[] } };
}
interface ZodIssue {
  path: PropertyKey[];
  message: string;
}
interface ZodUnion {
  options: { shape: { method: { value: string } } }[];
}

export type Era = 'legacy' | 'modern';

/** The schemas of one era: by method, the request or notification and, for requests, the result. */
export interface EraSchemas {
  /** By `in`/`out` and method: the schema of the whole message (jsonrpc and id removed). */
  messages: { in: Map<string, ZodLike>; out: Map<string, ZodLike> };
  results: Map<string, ZodLike>;
  /** The SDK the schemas come from, for reports. */
  source: string;
}

/** The result schema of each request method, by export name (the same names in v1 and v2). */
const RESULTS: Readonly<Record<string, string>> = {
  initialize: 'InitializeResultSchema',
  'server/discover': 'DiscoverResultSchema',
  ping: 'EmptyResultSchema',
  'tools/list': 'ListToolsResultSchema',
  'tools/call': 'CallToolResultSchema',
  'prompts/list': 'ListPromptsResultSchema',
  'prompts/get': 'GetPromptResultSchema',
  'resources/list': 'ListResourcesResultSchema',
  'resources/templates/list': 'ListResourceTemplatesResultSchema',
  'resources/read': 'ReadResourceResultSchema',
  'resources/subscribe': 'EmptyResultSchema',
  'resources/unsubscribe': 'EmptyResultSchema',
  'completion/complete': 'CompleteResultSchema',
  'logging/setLevel': 'EmptyResultSchema',
  'sampling/createMessage': 'CreateMessageResultSchema',
  'elicitation/create': 'ElicitResultSchema',
  'roots/list': 'ListRootsResultSchema',
};

const loaded = new Map<Era, Promise<EraSchemas>>();

/**
 * The schemas of an era, loaded once.
 *
 * @example (await eraSchemas('legacy')).messages.in.get('tools/call')
 */
export function eraSchemas(era: Era): Promise<EraSchemas> {
  let schemas = loaded.get(era);
  if (schemas === undefined) {
    schemas = load(era);
    loaded.set(era, schemas);
  }
  return schemas;
}

async function load(era: Era): Promise<EraSchemas> {
  const types = (era === 'legacy'
    ? await import('@modelcontextprotocol/sdk/types.js')
    : await import('@modelcontextprotocol/core')) as unknown as Record<string, unknown>;
  const byMethod = (...unions: string[]) => {
    const map = new Map<string, ZodLike>();
    for (const name of unions)
      for (const option of (types[name] as ZodUnion).options)
        map.set(option.shape.method.value, option as unknown as ZodLike);
    return map;
  };
  const results = new Map<string, ZodLike>();
  for (const [method, name] of Object.entries(RESULTS)) {
    const schema = types[name] as ZodLike | undefined;
    if (schema !== undefined) results.set(method, schema);
  }
  return {
    messages: {
      in: byMethod('ClientRequestSchema', 'ClientNotificationSchema'),
      out: byMethod('ServerRequestSchema', 'ServerNotificationSchema'),
    },
    results,
    source: era === 'legacy' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/core',
  };
}

/**
 * The first problem of a value against a schema, as `path: message`; undefined when it matches.
 *
 * @example schemaProblem(schema, { method: 'tools/call', params: {} }) // → 'params.name: Invalid input…'
 */
export function schemaProblem(schema: ZodLike, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  if (issue === undefined) return 'does not match';
  const path = issue.path.map(String).join('.');
  return `${path === '' ? '(message)' : path}: ${issue.message}`;
}
