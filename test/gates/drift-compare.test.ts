import { describe, expect, it } from 'vitest';
import { driftFails } from '../../src/gates/drift/classes.js';
import { compareDefinitions } from '../../src/gates/drift/compare.js';
import { DefinitionCollector, type Definitions } from '../../src/gates/drift/definitions.js';
import { lockLines, parseLock, renderLock } from '../../src/gates/drift/lock.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import type { Json, TraceLine } from '../../src/trace/types.js';

const tools = (...list: JsonObject[]): Definitions => ({
  tools: new Map(list.map((t) => [String(t.name), t])),
});
const tool = (name: string, extra: JsonObject = {}): JsonObject => ({
  name,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  ...extra,
});
const classes = (base: Definitions, next: Definitions) =>
  compareDefinitions(base, next).map((c) => [c.class, c.item, c.path]);

describe('drift classes each change', () => {
  it('breaking: a tool removed, a required input added, an optional input made required, a type narrowed', () => {
    const base = tools(
      tool('gone'),
      tool('a'),
      tool('b', {
        inputSchema: {
          type: 'object',
          properties: { q: { type: ['string', 'number'] }, n: { type: 'number' } },
        },
      }),
    );
    const next = tools(
      tool('a', {
        inputSchema: {
          type: 'object',
          properties: { q: { type: 'string' }, must: { type: 'string' } },
          required: ['must'],
        },
      }),
      tool('b', {
        inputSchema: {
          type: 'object',
          properties: { q: { type: 'string' }, n: { type: 'number' } },
          required: ['n'],
        },
      }),
    );
    expect(classes(base, next)).toEqual([
      ['breaking', 'gone', '$'],
      ['breaking', 'a', '$.inputSchema.properties.must'],
      ['breaking', 'b', '$.inputSchema.properties.q.type'],
      ['breaking', 'b', '$.inputSchema.required'],
    ]);
  });

  it('breaking: an enum shrunk, a format added, an output property removed', () => {
    const base = tools(
      tool('e', {
        inputSchema: {
          type: 'object',
          properties: { mode: { type: 'string', enum: ['a', 'b'] }, d: { type: 'string' } },
        },
        outputSchema: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } },
      }),
    );
    const next = tools(
      tool('e', {
        inputSchema: {
          type: 'object',
          properties: { mode: { type: 'string', enum: ['a'] }, d: { type: 'string', format: 'date' } },
        },
        outputSchema: { type: 'object', properties: { x: { type: 'number' } } },
      }),
    );
    expect(compareDefinitions(base, next).map((c) => [c.class, c.message])).toEqual([
      ['breaking', 'tool "e": the enum of $.inputSchema.properties.mode lost "b"'],
      ['breaking', 'tool "e": the format of $.inputSchema.properties.d changed from none to "date"'],
      ['breaking', 'tool "e": output property "y" was removed'],
    ]);
  });

  it('risky: each hint made less safe, with MCP defaults for hints left out; safer is cosmetic', () => {
    const base = tools(
      tool('h', {
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
      }),
    );
    const next = tools(tool('h', { annotations: {} }));
    expect(classes(base, next)).toEqual([
      ['risky', 'h', '$.annotations.readOnlyHint'],
      ['risky', 'h', '$.annotations.destructiveHint'],
      ['risky', 'h', '$.annotations.idempotentHint'],
      ['risky', 'h', '$.annotations.openWorldHint'],
    ]);
    expect(classes(next, base).map(([c]) => c)).toEqual(['cosmetic', 'cosmetic', 'cosmetic', 'cosmetic']);
  });

  it('additive: a new tool, a new optional input; cosmetic: description and title', () => {
    const base = tools(tool('a', { description: 'old' }));
    const next = tools(
      tool('a', {
        description: 'new',
        title: 'A',
        inputSchema: { type: 'object', properties: { q: { type: 'string' }, o: { type: 'number' } } },
      }),
      tool('b'),
    );
    expect(classes(base, next)).toEqual([
      ['additive', 'a', '$.inputSchema.properties.o'],
      ['cosmetic', 'a', '$.description'],
      ['cosmetic', 'a', '$.title'],
      ['additive', 'b', '$'],
    ]);
  });

  it('compares prompts by argument and resources by uri', () => {
    const base: Definitions = {
      prompts: new Map([['p', { name: 'p', arguments: [{ name: 'x', required: false }, { name: 'y' }] }]]),
      resources: new Map([['demo://a', { uri: 'demo://a', name: 'a' }]]),
    };
    const next: Definitions = {
      prompts: new Map([['p', { name: 'p', arguments: [{ name: 'x', required: true }] }]]),
      resources: new Map([['demo://b', { uri: 'demo://b', name: 'b' }]]),
    };
    expect(classes(base, next)).toEqual([
      ['breaking', 'p', '$.arguments.x.required'],
      ['breaking', 'p', '$.arguments.y'],
      ['breaking', 'demo://a', '$'],
      ['additive', 'demo://b', '$'],
    ]);
  });

  it('--fail-on: a class fails on itself and worse', () => {
    expect(driftFails({ class: 'risky' }, 'breaking')).toBe(false);
    expect(driftFails({ class: 'risky' }, 'risky')).toBe(true);
    expect(driftFails({ class: 'breaking' }, 'additive')).toBe(true);
    expect(driftFails({ class: 'cosmetic' }, 'any')).toBe(true);
  });
});

describe('definitions from a trace and a lock file', () => {
  const T = '2026-12-06T00:00:00.000Z';
  const line = (dir: 'in' | 'out', raw: Json): TraceLine => ({ t: T, dir, raw });

  it('follows pages, and a new listing replaces the one before', () => {
    const c = new DefinitionCollector();
    const lines = [
      line('in', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      line('out', { jsonrpc: '2.0', id: 1, result: { tools: [tool('a')], nextCursor: 'p2' } }),
      line('in', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'p2' } }),
      line('out', { jsonrpc: '2.0', id: 2, result: { tools: [tool('b')] } }),
    ];
    for (const l of lines) c.push(l);
    expect([...(c.result().tools?.keys() ?? [])]).toEqual(['a', 'b']);
    c.push(line('in', { jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    c.push(line('out', { jsonrpc: '2.0', id: 3, result: { tools: [tool('c')] } }));
    expect([...(c.result().tools?.keys() ?? [])]).toEqual(['c']);
    expect(c.result().prompts).toBeUndefined();
  });

  it('writes canonical, sorted lock files that read back the same, and knows the line of each item', () => {
    const defs = tools(tool('zeta', { description: 'z' }), tool('alpha'));
    const text = renderLock(defs);
    expect(text.indexOf('"alpha"')).toBeLessThan(text.indexOf('"zeta"'));
    expect(compareDefinitions(parseLock(JSON.parse(text), 'x'), defs)).toEqual([]);
    const lines = text.split('\n');
    const at = lockLines(text).get('tools\u0000zeta')!;
    expect(lines[at - 1]).toBe('    {');
    expect(lines.slice(at - 1, at + 12).join('\n')).toContain('"name": "zeta"');
  });
});
