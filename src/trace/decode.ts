import type { TraceLine } from './types.js';

/**
 * What one line of a trace decodes to. `unknown` is a well-formed line of a `type` this version does not know
 * (a newer producer's line): readers skip it, as the format demands, instead of calling the trace corrupt.
 */
export type Decoded =
  | { kind: 'line'; line: TraceLine }
  | { kind: 'unknown'; type: string }
  | { kind: 'invalid'; reason: string };

/**
 * Decodes one line of trace text (without its newline) into a trace line.
 * Unknown fields are kept as they are (lossless convert); only the fields a reader relies on are checked.
 *
 * @example
 * decodeLine('{"t":"2026-01-01T00:00:00.000Z","dir":"in","raw":{"jsonrpc":"2.0","method":"ping","id":1}}')
 * // → { kind: 'line', line: { t: '…', dir: 'in', raw: { … } } }
 * decodeLine('{"t":"…","type":"future-thing"}') // → { kind: 'unknown', type: 'future-thing' }
 * decodeLine('{"t":') // → { kind: 'invalid', reason: 'not valid JSON (…)' }
 */
export function decodeLine(text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return invalid(parseFailure(err));
  }
  return decodeValue(value, text);
}

/**
 * Like {@link decodeLine} for a value already parsed from JSON (`text`, when known, is what it was parsed from:
 * a short one needs no nesting check).
 */
export function decodeValue(value: unknown, text?: string): Decoded {
  const deep = nestingProblem(value, text);
  if (deep !== undefined) return invalid(deep);
  return lineProblem(value) ?? { kind: 'line', line: value as TraceLine };
}

/**
 * The deepest a trace line may nest. Readers, pairing, redaction, stats and the timeline walk messages by
 * recursion, as JSON.stringify does: a line nested millions of levels deep (JSON.parse takes it) would overflow
 * the stack of every one of them. So a deeper line is reported as corrupt, with its line number, and left out; no
 * MCP message comes near this.
 */
export const MAX_NESTING = 1000;

/**
 * Why a value parsed from a trace line nests too deep to be read, or undefined. Walks it without recursion,
 * stopping at the first level past {@link MAX_NESTING}; `text` (the JSON it was parsed from) spares the walk for
 * a line too short to nest that deep, each level taking two characters at least.
 *
 * @example nestingProblem(JSON.parse('['.repeat(2000) + ']'.repeat(2000))) // → 'JSON nested deeper than 1000 levels …'
 */
export function nestingProblem(value: unknown, text?: string): string | undefined {
  if (text !== undefined && text.length <= 2 * MAX_NESTING) return undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop()!;
    if (depth > MAX_NESTING) return TOO_DEEP;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}

const TOO_DEEP = `JSON nested deeper than ${MAX_NESTING} levels, more than tapedeck reads; skipped`;

/**
 * The reason a line's JSON.parse failed. A stack overflow (an engine that parses by recursion, on absurd nesting)
 * is named as the nesting it is.
 */
export function parseFailure(err: unknown): string {
  if (err instanceof RangeError) return TOO_DEEP;
  return `not valid JSON (${err instanceof Error ? err.message : String(err)})`;
}

/**
 * What keeps a parsed value from being a usable trace line, or undefined when it is one — {@link decodeValue}
 * without a wrapper for the common case, for readers that decode millions of lines.
 *
 * @example lineProblem({ t: '…', dir: 'in', raw: {} }) // → undefined
 */
export function lineProblem(value: unknown): Exclude<Decoded, { kind: 'line' }> | undefined {
  if (!isRecord(value)) return invalid(`expected a JSON object, got ${show(value)}`);
  const type = value.type;
  if (type === undefined) return messageProblem(value);
  if (typeof type !== 'string') return invalid(`"type" must be a string, got ${show(type)}`);
  const problem = checkTyped(type, value);
  if (problem === UNKNOWN) return { kind: 'unknown', type };
  if (problem !== undefined) return invalid(`${type} line: ${problem}`);
  return undefined;
}

const UNKNOWN = Symbol('unknown type');

/** The fields each line type must carry; returns what is wrong, or undefined when the line is usable. */
function checkTyped(type: string, v: Record<string, unknown>): string | typeof UNKNOWN | undefined {
  switch (type) {
    case 'meta':
      return need(v, 'startedAt', 'string') ?? need(v, 'label', 'string');
    case 'text':
      return record(v) ?? direction(v) ?? need(v, 'text', 'string');
    case 'stderr':
      return record(v) ?? need(v, 'text', 'string');
    case 'http':
      return record(v) ?? direction(v) ?? need(v, 'conn', 'string') ?? need(v, 'headers', 'object');
    case 'event':
      return record(v) ?? need(v, 'name', 'string');
    case 'end':
      return need(v, 't', 'string') ?? need(v, 'durationMs', 'number');
    default:
      return UNKNOWN;
  }
}

function messageProblem(v: Record<string, unknown>): Exclude<Decoded, { kind: 'line' }> | undefined {
  if (!('dir' in v) && !('raw' in v)) return invalid('not a trace line: it has no "type" and no "dir"/"raw"');
  const problem = record(v) ?? direction(v) ?? ('raw' in v ? undefined : 'has no "raw"');
  return problem === undefined ? undefined : invalid(`message line: ${problem}`);
}

/** Fields shared by every line that gets a sequence number. `seq` is optional: mcp-tape writes none. */
function record(v: Record<string, unknown>): string | undefined {
  const t = need(v, 't', 'string');
  if (t !== undefined) return t;
  if (v.seq !== undefined && !Number.isInteger(v.seq)) return `"seq" must be an integer, got ${show(v.seq)}`;
  return undefined;
}

function direction(v: Record<string, unknown>): string | undefined {
  return v.dir === 'in' || v.dir === 'out' ? undefined : `"dir" must be "in" or "out", got ${show(v.dir)}`;
}

function need(
  v: Record<string, unknown>,
  key: string,
  kind: 'string' | 'number' | 'object',
): string | undefined {
  const value = v[key];
  const ok = kind === 'object' ? isRecord(value) : typeof value === kind;
  return ok
    ? undefined
    : `"${key}" must be ${kind === 'object' ? 'an object' : `a ${kind}`}, got ${show(value)}`;
}

function invalid(reason: string): { kind: 'invalid'; reason: string } {
  return { kind: 'invalid', reason };
}

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short rendering of a bad value for an error message. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
