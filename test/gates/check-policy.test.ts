import { describe, expect, it } from 'vitest';
import { argsMatch, evaluate, isSubset } from '../../src/gates/check/evaluate.js';
import { EMPTY_POLICY, parsePolicy } from '../../src/gates/check/policy.js';
import type { AgentRun } from '../../src/gates/check/runs.js';
import { calledTool, calledToolsInOrder, noProtocolErrors } from '../../src/gates/matchers.js';
import type { TraceLine } from '../../src/trace/types.js';

const run = (tools: [string, object][], extra: Partial<AgentRun> = {}): AgentRun => ({
  file: 'run.jsonl',
  calls: tools.map(([tool, args], i) => ({ tool, args: args as never, line: i + 2, failed: false })),
  durationMs: 100,
  errors: 0,
  ...extra,
});

describe('check policies', () => {
  it('reads expect/forbid rules with exact, subset and regex matchers, and refuses bad ones with the key named', () => {
    const policy = parsePolicy(
      { expectTools: ['a'], forbid: [{ tool: 'rm', args: { regex: { path: '^/etc' } } }], maxDuration: '2s' },
      'p.yaml',
    );
    expect(policy.expect).toEqual([{ tool: 'a' }]);
    expect(policy.maxDurationMs).toBe(2000);
    expect(() => parsePolicy({ forbid: [{ tool: 'x', args: { regex: { p: '(' } } }] }, 'p.yaml')).toThrow(
      /^p\.yaml: "forbid"\[0\]\.args\.regex\.p is not a valid regular expression/,
    );
    expect(() => parsePolicy({ expectTool: ['a'] }, 'p.yaml')).toThrow('p.yaml: unknown key "expectTool"');
  });

  it('matches arguments exactly, as a subset and by regex', () => {
    expect(isSubset({ a: 1, b: { c: [1, 2] } }, { b: { c: [1] } })).toBe(true);
    expect(argsMatch({ a: 1, b: 2 }, { exact: { b: 2, a: 1 } })).toBe(true);
    expect(argsMatch({ a: 1, b: 2 }, { exact: { a: 1 } })).toBe(false);
    expect(argsMatch({ path: '/etc/passwd' }, { regex: { path: '^/etc' } })).toBe(true);
  });

  it('names each broken rule: max calls at the first call over, duration, errors', () => {
    const r = run(
      [
        ['s', {}],
        ['s', {}],
      ],
      { durationMs: 5000, errors: 1 },
    );
    const v = evaluate(r, { ...EMPTY_POLICY, maxCalls: { s: 1 }, maxDurationMs: 1000, expectNoErrors: true });
    expect(v.map((x) => [x.rule, x.line])).toEqual([
      ['max-calls', 3],
      ['max-duration', undefined],
      ['no-errors', undefined],
    ]);
  });
});

describe('matchers over lines in memory', () => {
  const T = '2026-12-06T00:00:00.000Z';
  const lines: TraceLine[] = [
    { v: 1, type: 'meta', startedAt: T, label: 'm' },
    {
      t: T,
      dir: 'in',
      raw: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: { q: 1 } } },
    },
    { t: T, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: { content: [] } } },
    {
      t: T,
      dir: 'in',
      raw: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b', arguments: {} } },
    },
    { t: T, dir: 'out', raw: { jsonrpc: '2.0', id: 9, result: {} } },
  ];

  it('passes and fails with a message that says what was called', async () => {
    expect((await calledTool(lines, 'a', { q: 1 })).pass).toBe(true);
    const wrong = await calledTool(lines, 'a', { q: 2 });
    expect([wrong.pass, wrong.message()]).toEqual([
      false,
      'expected a call of "a" with arguments holding {"q":2}; its calls had {"q":1}',
    ]);
    expect((await calledToolsInOrder(lines, ['a', 'b'])).pass).toBe(true);
    expect((await calledToolsInOrder(lines, ['b', 'a'])).pass).toBe(false);
    const lint = await noProtocolErrors(lines);
    expect([lint.pass, lint.message()]).toEqual([
      false,
      'expected no protocol errors; lint found 1:\n  line 5 jsonrpc/unknown-id: the server sent a response with id 9, which no client request in flight has',
    ]);
  });
});
