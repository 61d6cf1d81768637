import { classifyMessage, isObject, type JsonObject, type RpcRequest } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import { recordedRequest } from '../cassette/recorded-exchange.js';
import type { Cassette } from '../cassette/types.js';
import type { ReplayChannel } from './channel.js';
import { errorResponse } from './rewrite.js';

/**
 * Requests replay answers without a recording.
 *
 * `ping` carries nothing to match and a client may ping as often as it likes: pings beyond those the cassette
 * recorded get `{}`.
 *
 * `logging/setLevel`, for a server that had logging: many clients (the MCP Inspector among them) set a level of
 * their own choosing as they connect, which a recording made with another client does not hold. Setting a level
 * changes nothing replay sends, so one the cassette cannot serve gets `{}`, as that server would answer.
 *
 * `server/discover`, for cassettes that never recorded one: a 2026-era stdio client asks it from a probe process
 * before the session (and a recorder sees the probe as a separate trace), so a session cassette often lacks it;
 * the answer is then derived from the recorded session. A cassette recorded with the `initialize` handshake came
 * from a server that spoke the older protocol: such servers answer `-32601 Method not found`, which is what makes a
 * 2026 client fall back to `initialize` — so replay answers the same.
 */

const DISCOVER = 'server/discover';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

export type DiscoverAnswer =
  /** The cassette holds a `server/discover` exchange: the engine serves it. */
  | { kind: 'recorded' }
  /** Derived from a 2026-era session: versions its requests carried, what its server said of itself. */
  | { kind: 'derived'; result: JsonObject }
  /** The recording used `initialize`: answered as a server of that era answers. */
  | { kind: 'legacy'; code: number; message: string; data: Json }
  /** Nothing to go on: the engine answers with a miss. */
  | { kind: 'none' };

/**
 * How replay answers `server/discover` for this cassette.
 *
 * @example discoverAnswer(await fixtureCassette('era2026/era2026-stdio-sibling-session.jsonl')).kind // → 'derived'
 */
export function discoverAnswer(cassette: Cassette): DiscoverAnswer {
  if (cassette.exchanges.some((x) => x.method === DISCOVER)) return { kind: 'recorded' };
  const versions = new Set<string>();
  for (const exchange of cassette.exchanges) {
    const meta = recordedRequest(exchange).request.params?._meta;
    const version = isObject(meta) ? meta[VERSION_KEY] : undefined;
    if (typeof version === 'string') versions.add(version);
  }
  if (versions.size > 0) return { kind: 'derived', result: derivedResult(cassette, [...versions]) };
  const initialize = cassette.exchanges.find((x) => x.method === 'initialize' && x.response?.result);
  if (initialize) {
    return {
      kind: 'legacy',
      code: -32601,
      message: 'Method not found',
      data: {
        tapedeck: 'the cassette was recorded with the initialize handshake; answered as its server would',
      },
    };
  }
  return { kind: 'none' };
}

/** The discover result of a 2026 session: versions, capabilities as the session used them, server info. */
function derivedResult(cassette: Cassette, versions: string[]): JsonObject {
  const result: JsonObject = {
    resultType: 'complete',
    supportedVersions: versions,
    capabilities: inferCapabilities(cassette),
  };
  for (const exchange of cassette.exchanges) {
    const recorded = exchange.response?.result;
    if (!isObject(recorded)) continue;
    // Caching hints as the server gave them on its other results.
    if (result.ttlMs === undefined && recorded.ttlMs !== undefined) result.ttlMs = recorded.ttlMs;
    if (result.cacheScope === undefined && recorded.cacheScope !== undefined)
      result.cacheScope = recorded.cacheScope;
    const meta = recorded._meta;
    if (result._meta === undefined && isObject(meta) && meta[SERVER_INFO_KEY] !== undefined)
      result._meta = { [SERVER_INFO_KEY]: meta[SERVER_INFO_KEY] ?? null };
  }
  return result;
}

/** Capabilities the recorded traffic shows the server had. */
function inferCapabilities(cassette: Cassette): JsonObject {
  const methods = new Set<string>();
  for (const exchange of cassette.exchanges) {
    methods.add(exchange.method);
    for (const step of exchange.script) methods.add(step.method);
  }
  for (const message of cassette.unsolicited) methods.add(message.method);
  const has = (prefix: string) => [...methods].some((method) => method.startsWith(prefix));
  const capabilities: JsonObject = {};
  for (const area of ['tools', 'prompts', 'resources'] as const) {
    if (!has(`${area}/`) && !methods.has(`notifications/${area}/list_changed`)) continue;
    const capability: JsonObject = {};
    if (methods.has(`notifications/${area}/list_changed`)) capability.listChanged = true;
    if (area === 'resources' && methods.has('resources/subscribe')) capability.subscribe = true;
    capabilities[area] = capability;
  }
  if (methods.has('logging/setLevel') || methods.has('notifications/message')) capabilities.logging = {};
  if (methods.has('completion/complete')) capabilities.completions = {};
  return capabilities;
}

/** Whether the recorded server had logging: it said so in `initialize`, or the traffic shows it. */
function hadLogging(cassette: Cassette): boolean {
  const init = cassette.exchanges.find((x) => x.method === 'initialize')?.response?.result;
  if (isObject(init) && isObject(init.capabilities) && init.capabilities.logging !== undefined) return true;
  return inferCapabilities(cassette).logging !== undefined;
}

/** How many `logging/setLevel` requests the cassette recorded, per level. */
function recordedLevels(cassette: Cassette): Map<string, number> {
  const levels = new Map<string, number>();
  for (const exchange of cassette.exchanges) {
    if (exchange.method !== SET_LEVEL) continue;
    const level = levelOf(exchange.request.params);
    levels.set(level, (levels.get(level) ?? 0) + 1);
  }
  return levels;
}

function levelOf(params: JsonObject | undefined): string {
  return typeof params?.level === 'string' ? params.level : '';
}

const SET_LEVEL = 'logging/setLevel';

/** The methods {@link withFallbacks} may answer. */
const ANSWERED_HERE: ReadonlySet<string> = new Set(['ping', SET_LEVEL, DISCOVER]);

/** A request answered without a recording. */
export type Fallback =
  | { kind: 'discover'; answer: DiscoverAnswer }
  | { kind: 'ping' }
  | { kind: 'setLevel'; level: string };

/**
 * Wraps the engine's side of a channel so that a `ping`, `logging/setLevel` or `server/discover` the cassette
 * cannot serve is answered here (see {@link discoverAnswer}); everything else passes through. `onFallback` hears of
 * each.
 *
 * @example const engine = new ReplayEngine(cassette, withFallbacks(channel, cassette));
 */
export function withFallbacks(
  channel: ReplayChannel,
  cassette: Cassette,
  onFallback?: (fallback: Fallback) => void,
): ReplayChannel {
  // Worked out when first asked for: each walks the whole cassette, and most sessions never need them.
  let discover: DiscoverAnswer | undefined;
  let recordedPings: number | undefined;
  let levels: Map<string, number> | null | undefined;
  const answer = (fallback: Fallback, message: JsonObject) => {
    onFallback?.(fallback);
    channel.send(message);
  };
  /** Answers `request` here when the cassette cannot; false hands it to the engine. */
  const answered = (request: RpcRequest): boolean => {
    const ok = (result: JsonObject): JsonObject => ({ jsonrpc: '2.0', id: request.id, result });
    switch (request.method) {
      case 'ping':
        // Recorded pings are served (and counted) by the engine; any more are answered here.
        recordedPings ??= cassette.exchanges.filter((x) => x.method === 'ping').length;
        if (recordedPings-- > 0) return false;
        answer({ kind: 'ping' }, ok({}));
        return true;
      case SET_LEVEL: {
        levels ??= hadLogging(cassette) ? recordedLevels(cassette) : null;
        if (levels === null) return false;
        const level = levelOf(request.params);
        const left = levels.get(level) ?? 0;
        if (left > 0) {
          levels.set(level, left - 1);
          return false;
        }
        answer({ kind: 'setLevel', level }, ok({}));
        return true;
      }
      case DISCOVER: {
        discover ??= discoverAnswer(cassette);
        if (discover.kind === 'derived') answer({ kind: 'discover', answer: discover }, ok(discover.result));
        else if (discover.kind === 'legacy') {
          const { code, message, data } = discover;
          answer({ kind: 'discover', answer: discover }, errorResponse(request.id, code, message, data));
        } else return false;
        return true;
      }
      default:
        return false;
    }
  };
  return {
    send: (message, owned) => channel.send(message, owned),
    onMessage(handler) {
      channel.onMessage((message: Json) => {
        // Only the three methods are looked at closer; everything else goes to the engine as it came.
        const method = isObject(message) ? message.method : undefined;
        if (typeof method !== 'string' || !ANSWERED_HERE.has(method)) return handler(message);
        const item = classifyMessage(message);
        if (item.kind !== 'request' || !answered(item)) handler(message);
      });
    },
  };
}
