import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * JSON Schema checks of tool arguments and structured results, with the bounds a schema from a server needs: no
 * remote `$ref` is ever resolved (only `#…` refs inside the schema), a schema nested deeper than
 * {@link SCHEMA_LIMITS}.depth or larger than its `bytes` is refused, and a schema whose single check took longer
 * than `slowMs` is reported and not used again for the rest of the trace. JSON Schema 2020-12 is the dialect
 * unless the schema's `$schema` names draft-07 (what many SDKs still emit).
 */
export const SCHEMA_LIMITS = { depth: 64, bytes: 256 * 1024, slowMs: 250 } as const;

/** A usable schema, or why it cannot be used. */
export type CompiledSchema = { ok: true; check(value: unknown): SchemaCheck } | { ok: false; reason: string };

/** One check: passed, or the first path that failed and why. */
export type SchemaCheck =
  | { ok: true }
  | { ok: false; path: string; message: string }
  | { ok: 'slow'; ms: number };

const options = {
  strict: false,
  allErrors: false,
  validateFormats: false,
  // A `$ref` to anything not in the schema fails the compile instead of being fetched: no loadSchema is given.
  addUsedSchema: false,
} as const;

/** One compiler per dialect, made on first use; compiled functions are kept per schema text. */
export class SchemaCompiler {
  private ajv2020: Ajv2020 | undefined;
  private ajv07: Ajv | undefined;
  private readonly cache = new Map<string, CompiledSchema>();

  /**
   * Compiles a schema, or says why it cannot be used.
   *
   * @example new SchemaCompiler().compile({ type: 'object' }).ok // → true
   */
  compile(schema: unknown): CompiledSchema {
    const text = JSON.stringify(schema) ?? 'undefined';
    const cached = this.cache.get(text);
    if (cached !== undefined) return cached;
    const compiled = this.compileNew(schema, text);
    this.cache.set(text, compiled);
    return compiled;
  }

  private compileNew(schema: unknown, text: string): CompiledSchema {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      return { ok: false, reason: 'the schema is not a JSON object' };
    if (text.length > SCHEMA_LIMITS.bytes)
      return {
        ok: false,
        reason: `the schema is ${text.length} bytes, over the ${SCHEMA_LIMITS.bytes} allowed`,
      };
    const problem = boundsProblem(schema, 0);
    if (problem !== undefined) return { ok: false, reason: problem };
    const dialect = (schema as { $schema?: unknown }).$schema;
    const draft07 = typeof dialect === 'string' && /draft-0[67]/.test(dialect);
    let validate: ValidateFunction;
    try {
      if (draft07) {
        this.ajv07 ??= new Ajv(options);
        validate = this.ajv07.compile(schema);
      } else {
        this.ajv2020 ??= new Ajv2020(options);
        const { $schema: _, ...rest } = schema as Record<string, unknown>;
        validate = this.ajv2020.compile(
          typeof dialect === 'string' && dialect.includes('2020-12') ? schema : rest,
        );
      }
    } catch (err) {
      return { ok: false, reason: `not a usable JSON Schema: ${(err as Error).message}` };
    }
    let slow = false;
    return {
      ok: true,
      check(value: unknown): SchemaCheck {
        if (slow) return { ok: true };
        const started = performance.now();
        const valid = validate(value);
        const ms = performance.now() - started;
        if (ms > SCHEMA_LIMITS.slowMs) {
          slow = true;
          return { ok: 'slow', ms };
        }
        if (valid) return { ok: true };
        const error = validate.errors?.[0];
        return {
          ok: false,
          path: error?.instancePath === '' || error === undefined ? '/' : error.instancePath,
          message: error?.message ?? 'does not match',
        };
      },
    };
  }
}

/** Depth over the limit, or a `$ref` that points outside the schema; undefined when neither. */
function boundsProblem(node: unknown, depth: number): string | undefined {
  if (depth > SCHEMA_LIMITS.depth) return `the schema nests deeper than ${SCHEMA_LIMITS.depth} levels`;
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    for (const item of node) {
      const problem = boundsProblem(item, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  for (const [key, value] of Object.entries(node)) {
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && !value.startsWith('#'))
      return `the schema has a remote ${key} "${value}", which is never fetched`;
    const problem = boundsProblem(value, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
