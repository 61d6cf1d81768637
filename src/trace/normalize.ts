import { canonicalJson } from './canonical-json.js';
import { type IgnorePath, removePaths } from './ignore-paths.js';
import { isObject, type JsonObject } from './jsonrpc.js';

/**
 * Normalization: what of a request takes part in matching. Harmless drift — ids, progress tokens, trace context,
 * client versions, the 2026 era's opaque `requestState` — is taken out, so a cassette survives a new client build;
 * everything else must match exactly.
 */

/** The parts of a request that matching compares: the method and the normalized params (`{}` when absent). */
export interface NormalizedRequest {
  method: string;
  params: JsonObject;
}

/** What the default normalization drops, as data so callers can extend or replace it. */
export interface NormalizationRules {
  /** Keys dropped from `params._meta`. */
  metaKeys: readonly string[];
  /** Key prefixes dropped from `params._meta` (the 2026 era's per-request protocol facts). */
  metaPrefixes: readonly string[];
  /** Keys dropped from every request's params. */
  paramKeys: readonly string[];
  /** Keys dropped from the params of one method. */
  methodParamKeys: Readonly<Record<string, readonly string[]>>;
  /** Methods matched by name alone. */
  methodOnly: readonly string[];
}

export const DEFAULT_NORMALIZATION: NormalizationRules = {
  metaKeys: ['progressToken', 'traceparent', 'tracestate', 'baggage'],
  metaPrefixes: ['io.modelcontextprotocol/'],
  // An MRTR retry echoes the server's opaque state, which changes every run.
  paramKeys: ['requestState'],
  // A new client build or SDK bump must not break the handshake of an old cassette.
  methodParamKeys: { initialize: ['protocolVersion', 'capabilities', 'clientInfo'] },
  // Discovery is asked before anything is known, with whatever the client's version says.
  methodOnly: ['server/discover'],
};

export interface NormalizerOptions {
  rules?: NormalizationRules;
  /**
   * Locations in `{ method, params }` to ignore, e.g. `$.params.arguments.timestamp`, compiled (strings compile with
   * `compileIgnorePath`; the replay module's `createNormalizer` takes strings as they are).
   */
  ignore?: readonly IgnorePath[];
  /** A last custom step, e.g. to round numbers or drop a field that only sometimes appears. It must return new objects rather than change the ones it is given (they may be the recorded request itself). */
  normalize?: (request: NormalizedRequest) => NormalizedRequest;
  /** A first step: redact the params as the cassette was redacted (markers for secrets), see `cassetteRedaction`. */
  redact?: ((method: string, params: JsonObject) => JsonObject) | undefined;
}

/** Turns requests into their normalized form and matching key. */
export interface Normalizer {
  normalize(method: string, params: JsonObject | undefined): NormalizedRequest;
  /** `method` + space + canonical JSON of the normalized params. */
  key(request: NormalizedRequest): string;
}

/**
 * Builds a normalizer from rules, compiled ignore paths and an optional custom step.
 *
 * @example
 * const n = createNormalizer({ ignore: [compileIgnorePath('$.params.arguments.timestamp')] });
 * n.key(n.normalize('tools/call', { name: 'now', arguments: { timestamp: 1 }, _meta: { progressToken: 4 } }))
 * // → 'tools/call {"arguments":{},"name":"now"}'
 */
export function createNormalizer(options: NormalizerOptions = {}): Normalizer {
  const rules = compileRules(options.rules ?? DEFAULT_NORMALIZATION);
  const ignore = options.ignore ?? [];
  const custom = options.normalize;
  const redact = options.redact;
  return {
    normalize(method, rawParams) {
      const params = redact && rawParams ? redact(method, rawParams) : rawParams;
      let request: NormalizedRequest = { method, params: applyRules(rules, method, params) };
      if (ignore.length > 0) {
        const kept = removePaths({ method, params: request.params }, ignore);
        const pruned = isObject(kept) && isObject(kept.params) ? kept.params : {};
        request = { method, params: pruned };
      }
      return custom ? custom(request) : request;
    },
    key(request) {
      return `${request.method} ${canonicalJson(request.params)}`;
    },
  };
}

/** The rules in the shape the hot path wants: sets, and the keys dropped per method worked out once. */
interface CompiledRules {
  rules: NormalizationRules;
  methodOnly: ReadonlySet<string>;
  dropAll: ReadonlySet<string>;
  dropByMethod: ReadonlyMap<string, ReadonlySet<string>>;
}

function compileRules(rules: NormalizationRules): CompiledRules {
  const dropByMethod = new Map<string, ReadonlySet<string>>();
  for (const [method, keys] of Object.entries(rules.methodParamKeys)) {
    dropByMethod.set(method, new Set([...rules.paramKeys, ...keys]));
  }
  return {
    rules,
    methodOnly: new Set(rules.methodOnly),
    dropAll: new Set(rules.paramKeys),
    dropByMethod,
  };
}

function applyRules(compiled: CompiledRules, method: string, params: JsonObject | undefined): JsonObject {
  if (!params || compiled.methodOnly.has(method)) return {};
  const drop = compiled.dropByMethod.get(method) ?? compiled.dropAll;
  // Most requests have nothing to drop: hand back the params themselves instead of a copy. The keys that could go
  // are few, so they are looked up rather than every key of the params walked.
  let untouched = !Object.hasOwn(params, '_meta');
  if (untouched) {
    for (const key of drop) {
      if (Object.hasOwn(params, key)) {
        untouched = false;
        break;
      }
    }
  }
  if (untouched) return params;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(params)) {
    if (drop.has(key)) continue;
    if (key === '_meta' && isObject(value)) {
      const meta = normalizeMeta(compiled.rules, value);
      // An emptied _meta says nothing; keeping `{}` would tell a client that sends none from one that sends tokens.
      if (Object.keys(meta).length > 0) out._meta = meta;
      continue;
    }
    out[key] = value;
  }
  return out;
}

function normalizeMeta(rules: NormalizationRules, meta: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(meta)) {
    if (rules.metaKeys.includes(key)) continue;
    if (rules.metaPrefixes.some((prefix) => key.startsWith(prefix))) continue;
    out[key] = value;
  }
  return out;
}
