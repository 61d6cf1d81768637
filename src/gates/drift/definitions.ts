import { classifyItem, isObject, type JsonObject, type RpcId } from '../../trace/jsonrpc.js';
import type { Json, TraceLine } from '../../trace/types.js';

/** The kinds of definition a server offers, each with its list method, its answer's key and its identity. */
export const KINDS = [
  { kind: 'tools', method: 'tools/list', key: 'name', label: 'tool' },
  { kind: 'prompts', method: 'prompts/list', key: 'name', label: 'prompt' },
  { kind: 'resources', method: 'resources/list', key: 'uri', label: 'resource' },
  {
    kind: 'resourceTemplates',
    method: 'resources/templates/list',
    key: 'uriTemplate',
    label: 'resource template',
  },
] as const;

export type DefinitionKind = (typeof KINDS)[number]['kind'];

/**
 * What a server offers: per kind, each definition by its identity (a tool's name, a resource's uri), as the server
 * sent it. A kind the source never listed is undefined (not the same as listed and empty).
 */
export type Definitions = { [K in DefinitionKind]?: Map<string, JsonObject> };

/** The answer key of each list method (`tools` for tools/list …). */
const ANSWER_KEY: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/**
 * Collects the definitions of a trace's list answers. Pages are followed (a request with a cursor continues the
 * listing its first page began); a new listing without a cursor (after a list_changed) replaces the one before,
 * so the trace's last word counts.
 *
 * @example const defs = new DefinitionCollector(); for (const line of lines) defs.push(line); defs.result().tools
 */
export class DefinitionCollector {
  private readonly asked = new Map<string, { method: string; cursor: boolean }>();
  private readonly found: Definitions = {};
  /** Per kind, the listing being filled, replaced when a first page arrives. */
  private readonly current = new Map<DefinitionKind, Map<string, JsonObject>>();
  private capabilities: JsonObject | undefined;

  push(line: TraceLine): void {
    if (line.type !== undefined) return;
    const raw = line.raw;
    const items = Array.isArray(raw) ? raw : [raw];
    for (const one of items) {
      const item = classifyItem(one);
      const scope = `${String(line.server ?? '')}\u0000${String(line.conn ?? '')}`;
      if (item.kind === 'request' && item.method === 'initialize' && this.capabilities === undefined) {
        const declared = item.params?.capabilities;
        if (isObject(declared)) this.capabilities = declared;
      }
      if (item.kind === 'request' && line.dir === 'in' && ANSWER_KEY[item.method] !== undefined)
        this.asked.set(key(scope, item.id), {
          method: item.method,
          cursor: item.params?.cursor !== undefined,
        });
      else if (item.kind === 'response' && line.dir === 'out' && item.id !== null) {
        const asked = this.asked.get(key(scope, item.id)) ?? this.onlyAsked(item.id);
        if (asked === undefined || item.result === undefined) continue;
        this.asked.delete(key(scope, item.id));
        this.page(asked.method, asked.cursor, item.result);
      }
    }
  }

  /** What the recorded client declared in its first `initialize` (none in a stateless-era recording). */
  clientCapabilities(): JsonObject | undefined {
    return this.capabilities;
  }

  result(): Definitions {
    for (const [kind, map] of this.current) this.found[kind] = map;
    return this.found;
  }

  /** On HTTP every POST is its own connection: an answer may come on another; take the one open request by id. */
  private onlyAsked(id: RpcId): { method: string; cursor: boolean } | undefined {
    const suffix = `\u0000${typeof id}:${String(id)}`;
    const matches = [...this.asked.entries()].filter(([k]) => k.endsWith(suffix));
    if (matches.length !== 1) return undefined;
    this.asked.delete(matches[0]![0]);
    return matches[0]![1];
  }

  private page(method: string, continued: boolean, result: Json): void {
    const spec = KINDS.find((k) => k.method === method);
    if (spec === undefined || !isObject(result)) return;
    const list = result[spec.kind];
    if (!Array.isArray(list)) return;
    let map = this.current.get(spec.kind);
    if (map === undefined || !continued) {
      map = new Map();
      this.current.set(spec.kind, map);
    }
    for (const entry of list) {
      if (!isObject(entry)) continue;
      const id = entry[spec.key];
      if (typeof id === 'string') map.set(id, entry);
    }
  }
}

function key(scope: string, id: RpcId): string {
  return `${scope}\u0000${typeof id}:${String(id)}`;
}
