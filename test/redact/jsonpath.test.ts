import { describe, expect, it } from 'vitest';
import { compile, type RedactRule, redactJson } from '../../src/redact/index.js';
import { parsePath } from '../../src/redact/jsonpath.js';
import type { Json } from '../../src/trace/types.js';

function byPaths(...paths: string[]) {
  const rules: RedactRule[] = paths.map((path) => ({ id: 'p', type: 'path', path }));
  return compile({ defaults: false, rules, mode: 'marker' });
}

const M = '[REDACTED:p]';

/** Walks into a JSON value by keys and indexes. */
function at(value: unknown, ...path: Array<string | number>): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

const doc = (): Json => ({
  jsonrpc: '2.0',
  id: 1,
  params: {
    name: 'deploy',
    arguments: {
      env: 'prod',
      targets: [
        { host: 'a', creds: { user: 'u1', pass: 'p1' } },
        { host: 'b', creds: { user: 'u2', pass: 'p2' } },
      ],
      'api key': 'k',
      "it's": 'quoted',
      count: 3,
    },
  },
});

describe('parsePath', () => {
  it('reads every form of the subset', () => {
    expect(parsePath('$')).toEqual([]);
    expect(parsePath("$.a['b c'][2][*]..d..*.*")).toEqual([
      { descendant: false, selector: { kind: 'name', name: 'a' } },
      { descendant: false, selector: { kind: 'name', name: 'b c' } },
      { descendant: false, selector: { kind: 'index', index: 2 } },
      { descendant: false, selector: { kind: 'wildcard' } },
      { descendant: true, selector: { kind: 'name', name: 'd' } },
      { descendant: true, selector: { kind: 'wildcard' } },
      { descendant: false, selector: { kind: 'wildcard' } },
    ]);
    expect(parsePath(`$['it\\'s']["say \\"hi\\""]..['x']`)).toEqual([
      { descendant: false, selector: { kind: 'name', name: "it's" } },
      { descendant: false, selector: { kind: 'name', name: 'say "hi"' } },
      { descendant: true, selector: { kind: 'name', name: 'x' } },
    ]);
  });

  it.each([
    ['a.b', 0, 'expected `$`'],
    ['$.', 2, 'expected a name'],
    ['$..', 3, 'expected a name'],
    ['$[', 2, 'inside `[ ]`'],
    ['$[0', 3, 'expected `]`'],
    ["$['abc", 6, 'unterminated'],
    ['$[-1]', 2, 'inside `[ ]`'],
    ['$.a b', 3, 'unexpected " "'],
    ['$[?(@.x)]', 2, 'inside `[ ]`'],
  ])('rejects %s naming the path and position %i', (path, position, problem) => {
    expect(() => parsePath(path)).toThrow(
      `JSONPath ${JSON.stringify(path)} is malformed at position ${position}`,
    );
    expect(() => parsePath(path)).toThrow(problem);
  });
});

describe('path rules', () => {
  it('$ selects the whole message', () => {
    expect(redactJson(doc(), byPaths('$'))).toBe(M);
  });

  it('.name and [n] select one node', () => {
    const out = redactJson(doc(), byPaths('$.params.arguments.targets[1].creds.pass'));
    expect(at(out, 'params', 'arguments', 'targets', 1, 'creds')).toEqual({ user: 'u2', pass: M });
    expect(at(out, 'params', 'arguments', 'targets', 0, 'creds')).toEqual({ user: 'u1', pass: 'p1' });
  });

  it("['any name'] takes names with spaces and escaped quotes", () => {
    const out = redactJson(doc(), byPaths("$.params.arguments['api key']", "$..['it\\'s']"));
    expect(at(out, 'params', 'arguments', 'api key')).toBe(M);
    expect(at(out, 'params', 'arguments', "it's")).toBe(M);
  });

  it('[*] selects every element of an array and every member of an object', () => {
    const out = redactJson(doc(), byPaths('$.params.arguments.targets[*].creds'));
    expect(at(out, 'params', 'arguments', 'targets')).toEqual([
      { host: 'a', creds: M },
      { host: 'b', creds: M },
    ]);
    const members = redactJson({ a: { x: 's', y: [1], z: 2 } }, byPaths('$.a[*]'));
    expect(members).toEqual({ a: { x: M, y: M, z: M } });
  });

  it('..name finds the name at any depth, through arrays', () => {
    const out = redactJson(doc(), byPaths('$..pass'));
    expect([0, 1].map((i) => at(out, 'params', 'arguments', 'targets', i, 'creds'))).toEqual([
      { user: 'u1', pass: M },
      { user: 'u2', pass: M },
    ]);
    expect(redactJson({ pass: 'top', deep: [[{ pass: 'x' }]] }, byPaths('$..pass'))).toEqual({
      pass: M,
      deep: [[{ pass: M }]],
    });
  });

  it('..* selects every descendant: the top-level members go, numbers too, null stays', () => {
    expect(redactJson({ a: 'x', b: { c: 'y' }, n: 1, z: null }, byPaths('$..*'))).toEqual({
      a: M,
      b: M,
      n: M,
      z: null,
    });
    expect(redactJson({ a: { b: { c: 1, d: 's' } } }, byPaths('$.a..*'))).toEqual({ a: { b: M } });
  });

  it('an index only selects in arrays and a name only in objects', () => {
    const value = { '0': 'object member', list: ['first'] };
    expect(redactJson(value, byPaths('$[0]'))).toBe(value);
    expect(redactJson(value, byPaths('$.list[0]'))).toEqual({ '0': 'object member', list: [M] });
  });

  it('returns the input itself when no path selects anything', () => {
    const value = doc();
    expect(redactJson(value, byPaths('$.nope', '$..missing', '$.params.arguments.targets[5]'))).toBe(value);
  });

  it('keeps __proto__ and constructor keys as plain data, never touching prototypes', () => {
    const value = JSON.parse(
      '{"__proto__":{"polluted":"yes","pass":"p"},"constructor":{"prototype":{"pass":"q"}},"keep":"k"}',
    ) as Json;
    const out = redactJson(value, byPaths('$..pass', "$['constructor']['prototype']")) as Record<
      string,
      unknown
    >;
    expect(Object.keys(out)).toEqual(['__proto__', 'constructor', 'keep']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: 'yes', pass: M });
    expect(out.constructor).toEqual({ prototype: M });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe(
      `{"__proto__":{"polluted":"yes","pass":"${M}"},"constructor":{"prototype":"${M}"},"keep":"k"}`,
    );
  });

  it('reports a malformed path in a rule as the rule and the position', () => {
    expect(() =>
      compile({ defaults: false, rules: [{ type: 'path', path: '$.a[' }], mode: 'marker' }),
    ).toThrow(/redaction rule rules\[0\]: JSONPath "\$\.a\[" is malformed at position 4/);
  });
});
