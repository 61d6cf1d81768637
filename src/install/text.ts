/**
 * Text splicing for config files: edits at offsets, line and column of an offset, and a unified diff for
 * `--dry-run`.
 */

/** Replace `length` characters at `offset` with `text` (an insertion when length is 0). */
export interface TextEdit {
  offset: number;
  length: number;
  text: string;
}

/** Why a config file could not be read, with where (1-based line and column). */
export interface ConfigProblem {
  line: number;
  column: number;
  message: string;
}

/**
 * Applies non-overlapping edits. Insertions at the same offset keep the order they were given in.
 *
 * @example applyTextEdits('ab', [{ offset: 1, length: 0, text: 'X' }, { offset: 1, length: 0, text: 'Y' }]) // → 'aXYb'
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const ordered = edits.map((edit, index) => ({ edit, index }));
  ordered.sort((a, b) => b.edit.offset - a.edit.offset || b.index - a.index);
  let out = text;
  for (const { edit } of ordered)
    out = out.slice(0, edit.offset) + edit.text + out.slice(edit.offset + edit.length);
  return out;
}

/** 1-based line and column of a character offset. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * A unified diff of two texts with `context` lines around each change (`---`/`+++` headers, `@@` hunks).
 *
 * @example unifiedDiff('a\nb\n', 'a\nc\n', 'f.json') // → '--- f.json\n+++ f.json (tapedeck)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 */
export function unifiedDiff(before: string, after: string, label: string, context = 3): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // A final newline ends the last line; it is not a line of its own.
  if (a.at(-1) === '' && b.at(-1) === '') {
    a.pop();
    b.pop();
  }
  // Changes are local: trim the common head and tail, then line up the middle.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const ops: { kind: ' ' | '-' | '+'; line: string }[] = [];
  for (let i = 0; i < head; i++) ops.push({ kind: ' ', line: a[i]! });
  ops.push(...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)));
  for (let i = a.length - tail; i < a.length; i++) ops.push({ kind: ' ', line: a[i]! });
  if (ops.every((op) => op.kind === ' ')) return '';
  const out = [`--- ${label}`, `+++ ${label} (tapedeck)`];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    // One hunk runs until the changes are more than 2·context lines apart.
    const start = Math.max(0, i - context);
    let last = i;
    for (let j = i + 1; j < ops.length && j - last <= 2 * context; j++) if (ops[j]!.kind !== ' ') last = j;
    const stop = Math.min(ops.length, last + context + 1);
    const hunk = ops.slice(start, stop);
    const before = ops.slice(0, start);
    const aStart = before.filter((op) => op.kind !== '+').length + 1;
    const bStart = before.filter((op) => op.kind !== '-').length + 1;
    const aLen = hunk.filter((op) => op.kind !== '+').length;
    const bLen = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    i = stop;
  }
  return `${out.join('\n')}\n`;
}

/** A line-level edit script of the differing middle (LCS; it is small, since edits are local). */
function middle(a: string[], b: string[]): { kind: ' ' | '-' | '+'; line: string }[] {
  if (a.length * b.length > 4_000_000)
    return [
      ...a.map((line) => ({ kind: '-' as const, line })),
      ...b.map((line) => ({ kind: '+' as const, line })),
    ];
  const w = b.length + 1;
  const t = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      t[i * w + j] =
        a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
  const ops: { kind: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++]! });
      j++;
    } else if (i < a.length && (j === b.length || t[(i + 1) * w + j]! >= t[i * w + j + 1]!))
      ops.push({ kind: '-', line: a[i++]! });
    else ops.push({ kind: '+', line: b[j++]! });
  }
  return ops;
}
