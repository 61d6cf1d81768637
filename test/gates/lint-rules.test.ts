import { describe, expect, it } from 'vitest';
import { Linter } from '../../src/gates/lint/linter.js';
import { LINT_RULES } from '../../src/gates/lint/rules.js';
import type { Json, TraceLine } from '../../src/trace/types.js';

const T = '2026-12-06T00:00:00.000Z';
const meta = (transport: 'stdio' | 'http' | 'sse' = 'stdio'): TraceLine => ({
  v: 1,
  type: 'meta',
  startedAt: T,
  label: 't',
  transport,
});
const msg = (dir: 'in' | 'out', raw: Json, extra: Record<string, string> = {}): TraceLine => ({
  t: T,
  dir,
  raw,
  ...extra,
});
const req = (id: number | string, method: string, params?: Json) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const res = (id: number | string, result: Json) => ({ jsonrpc: '2.0', id, result });

function init(version = '2025-06-18', clientCaps: Json = {}, serverCaps: Json = { tools: {} }): TraceLine[] {
  return [
    meta(),
    msg(
      'in',
      req(0, 'initialize', {
        protocolVersion: version,
        capabilities: clientCaps,
        clientInfo: { name: 'c', version: '1' },
      }),
    ),
    msg(
      'out',
      res(0, { protocolVersion: version, capabilities: serverCaps, serverInfo: { name: 's', version: '1' } }),
    ),
    msg('in', { jsonrpc: '2.0', method: 'notifications/initialized' }),
  ];
}

const TOOLS = {
  tools: [
    {
      name: 'add',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    },
  ],
};

async function lint(lines: TraceLine[], levels = {}) {
  const linter = new Linter(levels);
  let n = 0;
  for (const line of lines) {
    n += 1;
    const pending = linter.push(line, 'trace.jsonl', n);
    if (pending !== undefined) await pending;
  }
  return linter.finish();
}

const rules = (findings: { rule: string }[]) => findings.map((f) => f.rule);

describe('lint rules, each with a planted defect', () => {
  it('finds nothing in a clean legacy session', async () => {
    const findings = await lint([
      ...init(),
      msg('in', req(1, 'tools/list')),
      msg('out', res(1, TOOLS)),
      msg('in', req(2, 'tools/call', { name: 'add', arguments: { a: 1 } })),
      msg('out', res(2, { content: [{ type: 'text', text: '1' }], structuredContent: { sum: 1 } })),
    ]);
    expect(findings).toEqual([]);
  });

  it('jsonrpc: unknown id, answered twice, never answered, id reused in flight, invalid', async () => {
    const findings = await lint([
      ...init(),
      msg('out', res(99, {})),
      msg('in', req(1, 'ping')),
      msg('in', req(1, 'ping')),
      msg('out', res(1, {})),
      msg('out', res(1, {})),
      msg('in', req(2, 'tools/list')),
      msg('in', { hello: 'world' }),
    ]);
    expect(rules(findings)).toEqual([
      'jsonrpc/unknown-id',
      'jsonrpc/id-reused',
      'jsonrpc/duplicate-response',
      'jsonrpc/unanswered',
      'jsonrpc/invalid',
    ]);
    expect(findings.map((f) => f.line)).toEqual([5, 7, 9, 10, 11]);
    expect(findings[3]?.message).toContain('"tools/list" request 2 was never answered');
  });

  it('jsonrpc/batch: refused from 2025-06-18, allowed in 2025-03-26', async () => {
    const batch = msg('in', [req(1, 'ping'), req(2, 'ping')]);
    const answers = msg('out', [res(1, {}), res(2, {})]);
    expect(rules(await lint([...init('2025-06-18'), batch, answers]))).toEqual([
      'jsonrpc/batch',
      'jsonrpc/batch',
    ]);
    expect(await lint([...init('2025-03-26'), batch, answers])).toEqual([]);
  });

  it('schema/message: a request and a result that break the SDK schema', async () => {
    const findings = await lint([
      ...init(),
      msg('in', req(1, 'tools/call', { arguments: {} })),
      msg('out', res(1, { content: 'not a list' })),
    ]);
    expect(rules(findings)).toEqual(['schema/message', 'schema/message']);
    expect(findings[0]?.message).toMatch(
      /"tools\/call" does not match the 2025-06-18 schema \(@modelcontextprotocol\/sdk\): params.name/,
    );
    expect(findings[1]?.message).toMatch(/^the result of "tools\/call"/);
  });

  it('tools: arguments, structuredContent (isError skipped), a tool never listed, a remote $ref', async () => {
    const findings = await lint([
      ...init(),
      msg('in', req(1, 'tools/list')),
      msg(
        'out',
        res(1, {
          tools: [
            ...TOOLS.tools,
            { name: 'far', inputSchema: { type: 'object', $ref: 'https://example.com/s.json' } },
          ],
        }),
      ),
      msg('in', req(2, 'tools/call', { name: 'add', arguments: { a: 'one' } })),
      msg('out', res(2, { content: [], structuredContent: { sum: 'x' } })),
      msg('in', req(3, 'tools/call', { name: 'add', arguments: { a: 1 } })),
      msg('out', res(3, { content: [{ type: 'text', text: 'boom' }], isError: true })),
      msg('in', req(4, 'tools/call', { name: 'add', arguments: { a: 1 } })),
      msg('out', res(4, { content: [] })),
      msg('in', req(5, 'tools/call', { name: 'ghost', arguments: {} })),
      msg('out', res(5, { content: [] })),
    ]);
    expect(rules(findings)).toEqual([
      'tools/bad-schema',
      'tools/input-schema',
      'tools/output-schema',
      'tools/output-schema',
      'tools/unlisted',
    ]);
    expect(findings[0]?.message).toContain(
      'remote $ref "https://example.com/s.json", which is never fetched',
    );
    expect(findings[1]?.message).toBe('the arguments of "add" fail its inputSchema: /a must be number');
    expect(findings[3]?.message).toContain('has no structuredContent');
  });

  it('capabilities: sampling the client never declared; a list_changed the server never declared', async () => {
    const findings = await lint([
      ...init('2025-06-18', { roots: {} }, { tools: {} }),
      msg('out', req(0, 'sampling/createMessage', { messages: [], maxTokens: 5 })),
      msg('in', res(0, { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' })),
      msg('out', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
      msg('in', req(1, 'prompts/list')),
      msg('out', res(1, { prompts: [] })),
    ]);
    expect(rules(findings)).toEqual(['capabilities/client', 'capabilities/server', 'capabilities/server']);
    expect(findings[0]?.message).toContain('did not declare the "sampling" capability');
    expect(findings[1]?.message).toContain('"tools.listChanged"');
  });

  it('2026-07-28: routing headers against the body, deprecated features as info', async () => {
    const m = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const http = (conn: string, headers: Record<string, string>): TraceLine => ({
      t: T,
      type: 'http',
      conn,
      dir: 'in',
      method: 'POST',
      headers,
    });
    const findings = await lint(
      [
        meta('http'),
        http('c1', { 'Mcp-Method': 'tools/list' }),
        msg('in', req(1, 'tools/call', { name: 'add', arguments: { a: 1 }, _meta: m }), { conn: 'c1' }),
        // No x-mcp-header declares `a`: an Mcp-Param-A header is nobody's business.
        http('c2', { 'mcp-method': 'tools/call', 'mcp-name': 'add', 'mcp-param-a': '2' }),
        msg('in', req(2, 'tools/call', { name: 'add', arguments: { a: 1 }, _meta: m }), { conn: 'c2' }),
        http('c3', { 'mcp-method': 'logging/setLevel' }),
        msg('in', req(3, 'logging/setLevel', { level: 'info', _meta: m }), { conn: 'c3' }),
      ],
      { 'jsonrpc/unanswered': 'off' },
    );
    expect(findings.map((f) => [f.rule, f.level])).toEqual([
      ['http/routing-header', 'error'],
      ['http/routing-header', 'error'],
      ['deprecated/feature', 'info'],
    ]);
    expect(findings[0]?.message).toBe(
      'the Mcp-Method header names "tools/list" but the body calls "tools/call"',
    );
    expect(findings[1]?.message).toBe(
      'the request "tools/call" carries no Mcp-Name header for its name "add"',
    );
  });

  it('2026-07-28: Mcp-Param-* headers are named by x-mcp-header, decoded, compared by type, expected only with a value', async () => {
    const m = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const tools = {
      tools: [
        {
          name: 'query',
          inputSchema: {
            type: 'object',
            properties: {
              region: { type: 'string', 'x-mcp-header': 'Region' },
              limit: { type: 'integer', 'x-mcp-header': 'Limit' },
              opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
            },
          },
        },
      ],
    };
    const http = (conn: string, headers: Record<string, string>): TraceLine => ({
      t: T,
      type: 'http',
      conn,
      dir: 'in',
      method: 'POST',
      headers,
    });
    const call = (id: number, args: Json) =>
      req(id, 'tools/call', { name: 'query', arguments: args, _meta: m });
    const base = { 'mcp-method': 'tools/call', 'mcp-name': 'query' };
    const findings = await lint(
      [
        meta('http'),
        http('c0', { 'mcp-method': 'tools/list' }),
        msg('in', req(0, 'tools/list', { _meta: m }), { conn: 'c0' }),
        msg('out', res(0, tools), { conn: 'c0' }),
        // Agrees: a base64 sentinel for a non-ASCII value, 10.0 for 10, a nested boolean.
        http('c1', {
          ...base,
          'Mcp-Param-Region': `=?base64?${Buffer.from('zürich').toString('base64')}?=`,
          'mcp-param-limit': '10.0',
          'Mcp-Param-Dry-Run': 'true',
        }),
        msg('in', call(1, { region: 'zürich', limit: 10, opts: { dry: true } }), { conn: 'c1' }),
        // No value, no header expected; a header for an absent argument is ignored.
        http('c2', { ...base, 'mcp-param-limit': '5' }),
        msg('in', call(2, {}), { conn: 'c2' }),
        // Disagrees, is missing, has a broken sentinel.
        http('c3', { ...base, 'Mcp-Param-Region': 'eu', 'Mcp-Param-Dry-Run': '=?base64?%%?=' }),
        msg('in', call(3, { region: 'us', limit: 3, opts: { dry: false } }), { conn: 'c3' }),
      ],
      { 'jsonrpc/unanswered': 'off' },
    );
    expect(findings.map((f) => [f.line, f.message])).toEqual([
      [10, 'the Mcp-Param-Region header says "eu" but the argument region is "us"'],
      [10, 'the argument limit is 3 but the Mcp-Param-Limit header is absent'],
      [10, 'the Mcp-Param-Dry-Run header carries an invalid =?base64?…?= value'],
    ]);
  });

  it('stdio: non-JSON stdout lines; recorder: truncated and dropped lines counted', async () => {
    const findings = await lint([
      meta(),
      { t: T, type: 'text', dir: 'out', text: 'Server started!' },
      { t: T, type: 'event', name: 'truncated', dir: 'out' },
      { t: T, type: 'event', name: 'dropped', count: 3 },
    ]);
    expect(findings.map((f) => [f.rule, f.line])).toEqual([
      ['stdio/non-json', 2],
      ['recorder/lost', 3],
    ]);
    expect(findings[1]?.message).toContain('1 truncated and 3 dropped');
  });

  it('takes levels per rule: off drops the finding, info lowers it', async () => {
    const lines = [...init(), msg('in', req(1, 'ping'))];
    expect(await lint(lines, { 'jsonrpc/unanswered': 'off' })).toEqual([]);
    expect((await lint(lines, { 'jsonrpc/unanswered': 'info' }))[0]?.level).toBe('info');
  });

  it('has a unique id, a sentence and a help for every rule', () => {
    expect(new Set(LINT_RULES.map((r) => r.id)).size).toBe(LINT_RULES.length);
    for (const rule of LINT_RULES) expect(rule.description).toMatch(/\.$/);
  });
});
