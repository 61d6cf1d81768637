import { describe, expect, it } from 'vitest';
import { formatMarker } from '../../src/redact/marker.js';
import { canonicalJson } from '../../src/trace/canonical-json.js';
import { createNormalizer } from '../../src/trace/normalize.js';
import type { Json } from '../../src/trace/types.js';

/** Canonical JSON as it is defined: every object's keys sorted as text, written key by key. */
function reference(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${reference(value[key] as Json)}`).join(',')}}`;
}

describe('canonical JSON: one definition for matching keys and hashed markers', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: null })).toBe('{"a":null,"b":[1,{"c":3,"d":2}]}');
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(undefined)).toBe('undefined');
  });

  it('sorts keys that look like array indices as text too, although objects list them first in numeric order', () => {
    const value = { b: 1, 10: { z: 1, 2: 2 }, 2: 3 };
    expect(canonicalJson(value)).toBe('{"10":{"2":2,"z":1},"2":3,"b":1}');
    expect(canonicalJson(value)).toBe(reference(value));
    expect(canonicalJson([{ 1: 'a', 0: 'b' }])).toBe('[{"0":"b","1":"a"}]');
  });

  it('gives the reference text for every shape, __proto__ keys kept as data', () => {
    const values: Json[] = [
      {},
      [],
      { a: { c: 1, b: [{ y: 1, x: 2 }] } },
      JSON.parse('{"__proto__":{"b":1,"a":2},"0":1}') as Json,
      { é: 1, e: 2, E: 3, '': 4, '01': 5 },
      [1, 'two', null, true, { k: [] }],
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(reference(value));
  });

  it('keys a request and hashes a redacted value by the same text', () => {
    const params = { arguments: { 2: 'x', 10: 'y' } };
    const seen: string[] = [];
    const hasher = (text: string) => {
      seen.push(text);
      return '0'.repeat(64);
    };
    formatMarker('rule', params, { mode: 'hash', hasher });
    const key = createNormalizer().key({ method: 'm', params });
    expect(key).toBe(`m ${seen[0]}`);
  });
});
