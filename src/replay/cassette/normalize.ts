import { jsonHash, textHash } from '../../trace/json-hash.js';
import {
  type NormalizedRequest,
  type Normalizer,
  createNormalizer as normalizerOf,
  type NormalizerOptions as TraceNormalizerOptions,
} from '../../trace/normalize.js';
import { compileIgnorePath, type IgnorePath } from './paths.js';

/**
 * The matching key's normalization lives with the trace format (src/trace/normalize.ts), so `diff` and the viewer
 * key requests exactly as replay does. Here it takes ignore paths as the user writes them.
 */

export { canonicalJson } from '../../trace/canonical-json.js';
export {
  DEFAULT_NORMALIZATION,
  type NormalizationRules,
  type NormalizedRequest,
  type Normalizer,
} from '../../trace/normalize.js';

export interface NormalizerOptions extends Omit<TraceNormalizerOptions, 'ignore'> {
  /** JSONPath locations in `{ method, params }` to ignore, e.g. `$.params.arguments.timestamp`. */
  ignore?: readonly (string | IgnorePath)[];
}

/**
 * Builds a normalizer from rules, ignore paths (strings or compiled) and an optional custom step.
 *
 * @example
 * const n = createNormalizer({ ignore: ['$.params.arguments.timestamp'] });
 * n.key(n.normalize('tools/call', { name: 'now', arguments: { timestamp: 1 }, _meta: { progressToken: 4 } }))
 * // → 'tools/call {"arguments":{},"name":"now"}'
 */
export function createNormalizer(options: NormalizerOptions = {}): Normalizer {
  const { ignore, ...rest } = options;
  return normalizerOf(ignore === undefined ? rest : { ...rest, ignore: ignore.map(compileIgnorePath) });
}

/** The normalizer of a replay with default settings (no ignore paths, custom step or redaction). */
export const defaultNormalizer: Normalizer = normalizerOf();

/**
 * The hash of a normalized request: equal keys give equal hashes. Kept to 30 bits, so it is a small integer that a
 * Map hashes directly instead of a boxed number.
 */
export function requestHash(request: NormalizedRequest): number {
  return jsonHash(request.params, textHash(request.method)) & 0x3fffffff;
}
