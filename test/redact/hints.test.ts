import { describe, expect, it } from 'vitest';
import { compile } from '../../src/redact/compile.js';
import { HintPlan, LONG_VALUE } from '../../src/redact/hints.js';

const HINTS = [
  ...new Set(compile({ defaults: true, rules: [], mode: 'marker' }).values.flatMap((m) => m.hints)),
];
const TEXT_CHARS = [' ', '\n', '"', '.', ':', '-', '_'];
const CHUNK = 1 << 18;

/** What the one-pass plan must find: every hint `includes` finds, chunk by chunk for a long value, as defined. */
function expected(hints: readonly string[], text: string, extra: readonly string[]): string[] {
  const longest = Math.max(...hints.map((hint) => hint.length));
  const chunks: string[] = [];
  if (text.length < LONG_VALUE) chunks.push(text);
  else for (let at = 0; at < text.length; at += CHUNK) chunks.push(text.slice(at, at + CHUNK + longest - 1));
  const found = new Set<string>();
  for (const chunk of chunks) {
    const data = text.length >= LONG_VALUE && TEXT_CHARS.every((ch) => !chunk.includes(ch));
    for (const hint of hints) {
      const plain = /^[A-Za-z0-9+/=]+$/.test(hint);
      if (!(data && plain) && chunk.includes(hint)) found.add(hint);
    }
    for (const ch of extra) if (chunk.includes(ch)) found.add(ch);
  }
  return [...found].sort();
}

/** A small deterministic generator (tests must repeat). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

const PIECES = [
  'the ',
  'a',
  'Z',
  '9',
  '-',
  '_',
  '.',
  ':',
  '/',
  ' ',
  '\n',
  '"',
  'é',
  '\u2028',
  '😀',
  '=',
  '+',
  '$',
];

function text(next: () => number, length: number): string {
  let out = '';
  while (out.length < length) {
    const roll = next();
    if (roll < 0.08) out += HINTS[Math.floor(next() * HINTS.length)];
    else if (roll < 0.1) out += HINTS[Math.floor(next() * HINTS.length)]!.slice(0, -1);
    else out += PIECES[Math.floor(next() * PIECES.length)];
  }
  return out;
}

function found(plan: HintPlan, value: string, extra: readonly string[] = []): string[] {
  return [...(plan.present(value, extra) ?? [])].sort();
}

describe('HintPlan', () => {
  const plan = new HintPlan(HINTS);

  it('finds exactly the hints includes finds, in generated values', () => {
    const next = random(7);
    for (let round = 0; round < 2000; round += 1) {
      const value = text(next, Math.floor(next() * (round % 10 === 0 ? 2000 : 300)));
      expect(found(plan, value, ['=', ':'])).toEqual(expected(HINTS, value, ['=', ':']));
    }
  });

  it('finds hints at the very start and end of a value, and none in an empty one', () => {
    for (const hint of HINTS) {
      expect(found(plan, hint)).toEqual(expected(HINTS, hint, []));
      expect(found(plan, `xx ${hint}`)).toEqual(expected(HINTS, `xx ${hint}`, []));
    }
    expect(plan.present('')).toBeUndefined();
  });

  it('keeps the chunk rules of long values: seams, and letters-only hints not counted in data', () => {
    const next = random(11);
    const base64 = 'QUJD'.repeat(CHUNK / 2);
    // A hint cut by a chunk seam, a letters-only hint inside base64, text after the data.
    const value = `${base64.slice(0, CHUNK - 2)}AKIA${base64}ghp_ and -----BEGIN ${text(next, 5000)}`;
    expect(found(plan, value, ['=', ':'])).toEqual(expected(HINTS, value, ['=', ':']));
    const prose = text(next, LONG_VALUE + 1000);
    expect(found(plan, prose, ['=', ':'])).toEqual(expected(HINTS, prose, ['=', ':']));
  });

  it('confirms a hint whose rarest character turns up often without it, before and after many false starts', () => {
    const filler = 'the rest of a page: notes, and more. '.repeat(LONG_VALUE / 30);
    for (const near of ['dp.audi ', 'xoxe ', 's.', 'sig ']) {
      for (const count of [1, 31, 32, 33, 500]) {
        const value = `${filler}${near.repeat(count)}dp.audit. xoxe. sl. sig= ${filler}`;
        expect(found(plan, value, ['=', ':'])).toEqual(expected(HINTS, value, ['=', ':']));
        const without = `${filler}${near.repeat(count)}${filler}`;
        expect(found(plan, without, ['=', ':'])).toEqual(expected(HINTS, without, ['=', ':']));
      }
    }
  });

  it('settles hints by pairs of characters where many tails turn up without their hint (code, docs)', () => {
    const next = random(13);
    // Every hint cut short many times over sends its tail on false starts: the pairs of characters get counted.
    const near = HINTS.map((hint) => `${hint.slice(0, -1)}— `.repeat(40)).join('');
    const filler = 'const some_name = other_value; // é notes_and_more\n'.repeat(LONG_VALUE / 100);
    for (const picked of [[], HINTS.filter(() => next() < 0.3), HINTS]) {
      const value = `${filler}${near}${picked.join(' ')}${filler}`;
      expect(found(plan, value, ['=', ':'])).toEqual(expected(HINTS, value, ['=', ':']));
    }
    // Hints past ASCII share a slot of the pair table: a shared slot never hides one that is there.
    const own = new HintPlan([
      'ключ_',
      'кл_a',
      'ab_é',
      'x_y',
      'q',
      'zz_1',
      'w_2',
      'v_3',
      'u_4',
      't_5',
      's_6',
    ]);
    const misses = ['ключ ', 'кл_b', 'ab_e', 'x_z', 'zz_2', 'w_3', 'v_4', 'u_5', 't_6', 's_7']
      .join(' ')
      .repeat(40);
    for (const tail of ['', 'ключ_ ab_é x_y s_6', 'кл_a q']) {
      const value = `${filler}${misses}${tail}${filler}`;
      expect(found(own, value)).toEqual(
        expected(['ключ_', 'кл_a', 'ab_é', 'x_y', 'q', 'zz_1', 'w_2', 'v_3', 'u_4', 't_5', 's_6'], value, []),
      );
    }
  });

  it('finds hints beyond ASCII and extras longer than a character', () => {
    const own = new HintPlan(['ключ', 'sk-', 'x']);
    expect(found(own, 'мой ключ sk-1', ['::'])).toEqual(['sk-', 'ключ']);
    expect(found(own, 'a::b x', ['::'])).toEqual(['::', 'x']);
  });
});
