import { redactKeyPath } from '../../base/paths.js';
import { type CompiledRules, compile } from '../../redact/compile.js';
import { loadRedactConfig, type RedactEnvironment } from '../../redact/config.js';
import { redactLine } from '../../redact/engine.js';
import { createKeyedHasher, loadRedactKey } from '../../redact/key-store.js';
import { markersWithoutRules } from '../../redact/marker.js';
import type { RedactConfig, RedactionSummary, RedactRule, ValueHasher } from '../../redact/types.js';
import { nodeTraceFiles } from '../../trace/io.js';
import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import type { MessageLine, MetaLine } from '../../trace/types.js';

/**
 * Matching against a redacted cassette. A cassette recorded with redaction holds `[REDACTED:<rule>]` (or, in hash
 * mode, `[REDACTED:<rule>:<hash>]`) where the secrets were, so a live request carrying the real secret is redacted
 * with the same rules before it is matched — only for matching: what goes to the client is the recording as is.
 */

/** Redacts a request's params for matching; returns them unchanged when nothing needed hiding. */
export type RequestRedactor = (method: string, params: JsonObject) => JsonObject;

/** Where the rules for matching come from, besides the cassette's meta line. */
export interface CassetteRedactionOptions {
  /**
   * The redaction the cassette says was applied. Read from the meta line when the cassette is a file; give it for
   * a Cassette built in memory (which keeps no meta).
   */
  summary?: RedactionSummary | undefined;
  /** `--redact` patterns, as `tapedeck record` takes them. */
  patterns?: readonly string[] | undefined;
  /** `--redact-file` paths, read after the user and project config and `$TAPEDECK_REDACT`. */
  files?: readonly string[] | undefined;
  /** Rules as data, after all of the above (what a redact.json's `rules` holds). */
  rules?: readonly RedactRule[] | undefined;
  /**
   * `false` with `--no-redact-defaults`. The built-in rules follow the cassette's summary all the same (it says what
   * was applied); a disagreement is warned about.
   */
  defaults?: boolean | undefined;
  /** Where the user and project configs and the hash key are looked for (tests). */
  where?: RedactEnvironment | undefined;
  /** The keyed hash for hash-mode cassettes; by default the per-install key (`~/.tapedeck/redact.key`). */
  hasher?: ValueHasher | undefined;
  /** Told once about rules that cannot be what the cassette was recorded with; default: a line on stderr. */
  onWarning?: ((message: string) => void) | undefined;
}

/**
 * The redaction summary of a meta line (`redaction: {defaults, customRules, mode}`), or undefined when it has
 * none or it is not one.
 *
 * @example redactionSummaryOf(loaded.meta) // → { defaults: true, customRules: 0, mode: 'marker' }
 */
export function redactionSummaryOf(meta: MetaLine | undefined): RedactionSummary | undefined {
  const value = meta?.redaction;
  if (!isObject(value)) return undefined;
  const { defaults, customRules, mode } = value;
  if (typeof defaults !== 'boolean') return undefined;
  if (mode !== 'marker' && mode !== 'hash') return undefined;
  const count = typeof customRules === 'number' && Number.isInteger(customRules) ? customRules : 0;
  return { defaults, customRules: Math.max(0, count), mode };
}

/**
 * The request redactor for a cassette: the built-in rules as its summary says, the custom rules from every source
 * `tapedeck record` reads (user and project redact.json, `$TAPEDECK_REDACT`, then `files`, `patterns`, `rules`),
 * and the summary's mode. Undefined when the cassette was not redacted. Throws a usage error for a bad rule source,
 * as record does.
 *
 * @example
 * const redact = await cassetteRedaction(loaded.meta, { patterns: flags.redact });
 * serveStdio(loaded.cassette, { input, output, redact });
 */
export async function cassetteRedaction(
  meta: MetaLine | undefined,
  options: CassetteRedactionOptions = {},
): Promise<RequestRedactor | undefined> {
  const summary = options.summary ?? redactionSummaryOf(meta);
  if (summary === undefined) return undefined;
  const warn =
    options.onWarning ?? ((message: string) => process.stderr.write(`tapedeck: warning: ${message}\n`));
  const { config: loaded } = loadRedactConfig(
    {
      patterns: options.patterns ?? [],
      files: options.files ?? [],
      defaults: options.defaults !== false,
      mode: summary.mode,
    },
    options.where ?? {},
  );
  const rules = [...loaded.rules, ...(options.rules ?? [])];
  const warnings: string[] = [];
  if (rules.length < summary.customRules) {
    warnings.push(
      `the cassette was redacted with ${summary.customRules} custom rule${summary.customRules === 1 ? '' : 's'} but ` +
        `${rules.length} ${rules.length === 1 ? 'is' : 'are'} loaded here, so requests carrying secrets those rules ` +
        'hid will not match; give replay the same --redact / --redact-file flags or redact.json the recording had',
    );
  }
  if (loaded.defaults !== summary.defaults) {
    warnings.push(
      `the cassette says the built-in redaction rules were ${summary.defaults ? 'on' : 'off'} when it was recorded; ` +
        'matching follows the cassette',
    );
  }
  let hasher = options.hasher;
  if (summary.mode === 'hash' && hasher === undefined) {
    const env = options.where?.env ?? process.env;
    if (await keyExists(redactKeyPath(env))) hasher = createKeyedHasher(loadRedactKey(env));
    else {
      // No key here: the recorded hashes cannot be reproduced, and creating a key now would not help either.
      warnings.push(
        `the cassette was redacted in hash mode, but there is no redaction key at ${redactKeyPath(env)}: ` +
          'requests carrying secrets will not match (copy the key of the machine that recorded it, or record in marker mode)',
      );
      hasher = createKeyedHasher(Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))));
    }
  }
  for (const warning of warnings) warn(warning);
  const config: RedactConfig = { defaults: summary.defaults, rules, mode: summary.mode };
  return requestRedactor(compile(config, hasher === undefined ? {} : { hasher }));
}

/**
 * A request redactor from compiled rules. Path rules see the request as a JSON-RPC message (`$.params.…`), as they
 * did when it was recorded. Markers on both sides lose their rule ids (`[REDACTED:token]` → `[REDACTED]`): the rule
 * that names a secret can differ between the tapedeck that recorded and this one, the secret's place and (in hash
 * mode) its hash cannot. A failure leaves the params as they are (the request then simply may not match).
 *
 * @example requestRedactor(compile({ defaults: true, rules: [], mode: 'marker' }))('tools/call', { arguments: { apiKey: 'sk-…' } })
 */
export function requestRedactor(compiled: CompiledRules): RequestRedactor {
  return (method, params) => {
    const line: MessageLine = { t: '', dir: 'in', raw: { jsonrpc: '2.0', id: 0, method, params } };
    let redacted: JsonObject = params;
    try {
      const out = redactLine(line, compiled);
      if (out !== line && isObject(out.raw) && isObject(out.raw.params)) redacted = out.raw.params;
      const unnamed = markersWithoutRules(redacted);
      return isObject(unnamed) ? unnamed : redacted;
    } catch {
      return redacted;
    }
  };
}

/** Whether the hash key is there, without creating it as loadRedactKey would. */
async function keyExists(path: string): Promise<boolean> {
  try {
    await nodeTraceFiles.check(path);
    return true;
  } catch {
    return false;
  }
}
