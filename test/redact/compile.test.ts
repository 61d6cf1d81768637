import { describe, expect, it } from 'vitest';
import { compile, type RedactRule, redactJson, redactLine, redactText } from '../../src/redact/index.js';

const T = '2026-11-29T22:15:23.264Z';

describe('compile', () => {
  const bad = (rule: unknown) => () =>
    compile({ defaults: false, rules: [{ type: 'key', name: 'ok' }, rule as RedactRule], mode: 'marker' });

  it('names the rule and the problem', () => {
    expect(bad({ type: 'regex', pattern: '(' })).toThrow(
      /redaction rule rules\[1\]: invalid regular expression "\(":/,
    );
    expect(bad({ type: 'regex', pattern: 'a', flags: 'y' })).toThrow(/rules\[1\]: flag "y" is not supported/);
    expect(bad({ type: 'regex', pattern: 'a', hints: [''] })).toThrow(/rules\[1\]: "hints" must be/);
    expect(bad({ type: 'path', path: 'api_key' })).toThrow(
      /rules\[1\]: JSONPath "api_key" is malformed at position 0/,
    );
    expect(bad({ type: 'key', name: '--' })).toThrow(/rules\[1\]: "name" must be a key name/);
    expect(bad({ type: 'header' })).toThrow(/rules\[1\]: "name" must be a header name/);
    expect(bad({ type: 'cookie' })).toThrow(
      /rules\[1\]: type "cookie" is not known; use one of key, path, regex, header, pem/,
    );
    expect(bad({ type: 'key', name: 'x', id: 'has space' })).toThrow(
      /rules\[1\]: id "has space" is not valid/,
    );
    expect(bad({ type: 'key', name: 'token', exclude: ['TOKEN'] })).toThrow(
      /rules\[1\]: it matches nothing: "exclude" lists its own name "token"/,
    );
    expect(bad({ type: 'header', name: 'x-a', exclude: ['X-A'] })).toThrow(/rules\[1\]: it matches nothing/);
    expect(bad({ type: 'regex', pattern: 'a', minRun: 1.5 })).toThrow(
      /rules\[1\]: "minRun" must be a whole number/,
    );
    expect(() => compile({ defaults: false, rules: [], mode: 'blur' as never })).toThrow(
      /mode "blur" is not valid/,
    );
  });

  it.each([
    [
      '(a{1,9}){2,9}$',
      'position 8: a quantifier inside a group repeated by "{2,9}" can backtrack exponentially',
    ],
    ['(a+)+$', 'position 2: "+" has no upper bound'],
    ['(?:\\w{0,9}x){2,9}', 'position 12: a quantifier inside a group repeated by "{2,9}"'],
    ['(a|ab){1,20}c', 'position 6: alternatives inside a group repeated by "{1,20}"'],
    ['\\w+@example', 'position 2: "+" has no upper bound and can backtrack quadratically; give it one'],
    ['[^@]*@', 'position 4: "*" has no upper bound'],
    ['key=\\d{4,}x', 'position 6: "{4,}" has no upper bound'],
    ['a+|b', 'position 1: "+" has no upper bound'],
  ])('refuses %s, which can backtrack, naming the rule and where', (pattern, problem) => {
    expect(bad({ id: 'slow', type: 'regex', pattern })).toThrow(
      `redaction rule rules[1] (slow): pattern ${JSON.stringify(pattern)} at ${problem}`,
    );
  });

  it.each([
    'ACME-[0-9]+',
    'sk-ant-[\\w-]*',
    '\\bAKIA[0-9A-Z]{16}\\b',
    '(?:ab){1,4}c',
    '(?:[a-f0-9]{16}_)?[a-f0-9]{40}',
    '(?<name>x)\\k<name>{1,3}',
    '[(+*]{1,3}\\(\\+',
  ])('accepts %s: bounded, or unbounded only at the very end', (pattern) => {
    expect(() =>
      compile({ defaults: false, rules: [{ type: 'regex', pattern }], mode: 'marker' }),
    ).not.toThrow();
  });

  it("applies mcp-tape's redact.json rules: a path, a regex, a lookbehind", () => {
    const rules = JSON.parse(
      String.raw`[
        {"type":"path","path":"$..api_key"},
        {"type":"regex","pattern":"\\bAKIA[0-9A-Z]{16}\\b"},
        {"type":"regex","pattern":"(?<=://[^/\\s:@]{1,128}:)[^/\\s@]{1,256}(?=@)"}
      ]`,
    ) as RedactRule[];
    const compiled = compile({ defaults: false, rules, mode: 'marker' });
    expect(compiled.pathIds).toEqual(['api_key']);
    const out = redactJson(
      {
        a: { api_key: 'k1', b: [{ api_key: { nested: true } }] },
        note: 'id AKIAIOSFODNN7EXAMPLE at mysql://root:toor@db/x',
      },
      compiled,
    );
    expect(out).toEqual({
      a: { api_key: '[REDACTED:api_key]', b: [{ api_key: '[REDACTED:api_key]' }] },
      note: 'id [REDACTED:regex] at mysql://root:[REDACTED:regex]@db/x',
    });
  });

  it('a regex rule with a secret group hides only that group; user hints gate it', () => {
    const compiled = compile({
      defaults: false,
      rules: [{ id: 'pin', type: 'regex', pattern: 'PIN=(?<secret>\\d{4,8})', hints: ['PIN='] }],
      mode: 'marker',
    });
    expect(redactText('PIN=12345 ok', compiled)).toBe('PIN=[REDACTED:pin] ok');
    expect(redactText('pin=12345 ok', compiled)).toBe('pin=12345 ok');
  });

  it('takes custom key and header rules with exclusions', () => {
    const compiled = compile({
      defaults: false,
      rules: [
        { type: 'key', name: 'tenantId', exclude: ['public_tenant_id'] },
        { type: 'header', name: 'x-tenant', contains: true },
      ],
      mode: 'marker',
    });
    const value = { tenant_id: 't1', TenantID: 't2', publicTenantId: 'p', other: 1 };
    expect(redactJson(value, compiled)).toEqual({
      tenant_id: '[REDACTED:tenant-id]',
      TenantID: '[REDACTED:tenant-id]',
      publicTenantId: 'p',
      other: 1,
    });
    expect(
      redactLine({ t: T, type: 'http', conn: 'c', dir: 'in', headers: { 'X-Tenant-Name': 'acme' } }, compiled)
        .headers,
    ).toEqual({ 'X-Tenant-Name': '[REDACTED:x-tenant-header]' });
  });
});
