import { type CompiledRules, compile, summarize } from './compile.js';
import { loadRedactConfig, type RedactEnvironment, type RedactFlags } from './config.js';
import { redactorOf } from './engine.js';
import { createKeyedHasher, loadRedactKey } from './key-store.js';
import type { RedactConfig, RedactionSummary, Redactor, RedactRule } from './types.js';

/**
 * A recorder's redaction, set up the way `tapedeck record` sets it up: the built-in rules, the user and project
 * redact.json, `$TAPEDECK_REDACT`, then what the caller adds. Every recorder — the CLI, `recordTransport`,
 * `useCassette` — starts from here, so a project's rules hide its secrets whichever door a recording comes in by.
 */

export interface RedactionOptions extends RedactFlags {
  /** Rules as data, after every file and pattern (what a redact.json's `rules` holds). */
  rules?: readonly RedactRule[] | undefined;
  /** Where the user and project configs, `$TAPEDECK_REDACT` and the hash key are looked for (tests). */
  where?: RedactEnvironment | undefined;
  /** Told when the engine fails on a line (the line is then stored without its payload). */
  onError?: ((err: unknown) => void) | undefined;
  /**
   * Told, in one line, that the built-in rules are off and what turned them off, or that a project file asked to
   * and was not heard (see loadRedactConfig). By default the line goes to stderr as `tapedeck: …`.
   */
  onNotice?: ((message: string) => void) | undefined;
}

/** A redaction setup ready to use: the config, its compiled rules, the sink's redactor and the meta summary. */
export interface Redaction {
  config: RedactConfig;
  compiled: CompiledRules;
  redactor: Redactor;
  summary: RedactionSummary;
}

/**
 * Loads and compiles a redaction setup; in `hash` mode with the per-install key (created on first use). Throws
 * TapedeckError('usage') naming the file, rule and problem when a source is bad, so call it before starting
 * anything.
 *
 * @example const { redactor, summary } = loadRedaction({ patterns: ['\\bACME-[0-9]{8}\\b'] });
 */
export function loadRedaction(options: RedactionOptions = {}): Redaction {
  const where = options.where ?? {};
  const { config: loaded, notice } = loadRedactConfig(
    {
      patterns: options.patterns ?? [],
      files: options.files ?? [],
      defaults: options.defaults !== false,
      mode: options.mode ?? 'marker',
    },
    where,
  );
  const config: RedactConfig = { ...loaded, rules: [...loaded.rules, ...(options.rules ?? [])] };
  if (notice !== undefined)
    (options.onNotice ?? ((message: string) => process.stderr.write(`tapedeck: ${message}\n`)))(notice);
  const hasher = config.mode === 'hash' ? createKeyedHasher(loadRedactKey(where.env)) : undefined;
  const compiled = compile(config, hasher !== undefined ? { hasher } : {});
  return { config, compiled, redactor: redactorOf(compiled, options.onError), summary: summarize(config) };
}
