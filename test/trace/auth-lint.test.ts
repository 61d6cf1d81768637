import { describe, expect, it } from 'vitest';
import { AUTH_RULES, lintAuth, resourceForMetadataUrl } from '../../src/trace/auth-lint.js';
import type { TraceLine } from '../../src/trace/types.js';

const t = '2026-12-06T00:00:00.000Z';
const meta: TraceLine = {
  v: 1,
  type: 'meta',
  startedAt: t,
  label: 'x',
  kind: 'mcp',
  producer: { name: 'tapedeck', version: '0' },
  traceId: 'id',
  segment: 0,
  transport: 'http',
};
const httpIn = (stream: string, url: string): TraceLine => ({
  t,
  seq: 1,
  type: 'http',
  conn: stream,
  stream,
  dir: 'in',
  method: 'GET',
  url,
  headers: {},
});
const httpOut = (stream: string, status: number, headers: Record<string, string> = {}): TraceLine => ({
  t,
  seq: 2,
  type: 'http',
  conn: stream,
  stream,
  dir: 'out',
  status,
  headers,
});
const oauth = (stream: string, fields: Record<string, unknown>): TraceLine => ({
  t,
  type: 'event',
  name: 'oauth',
  conn: stream,
  stream,
  ...fields,
});

describe('the auth lint rules', () => {
  it('find a 401 without WWW-Authenticate, naming the URL and the line', () => {
    const findings = lintAuth([meta, httpIn('h1', 'https://up/mcp'), httpOut('h1', 401)]);
    expect(findings).toEqual([
      expect.objectContaining({
        rule: 'auth/challenge-without-www-authenticate',
        line: 3,
        severity: 'error',
      }),
    ]);
    expect(findings[0]!.message).toContain('for https://up/mcp');
    expect(
      lintAuth([meta, httpIn('h1', 'https://up/mcp'), httpOut('h1', 401, { 'www-authenticate': 'Bearer' })]),
    ).toEqual([]);
  });

  it('find metadata whose resource is not the URL it was fetched for', () => {
    const lines = [
      meta,
      httpIn('h2', 'https://up/.well-known/oauth-protected-resource/mcp'),
      httpOut('h2', 200),
      oauth('h2', {
        step: 'resource-metadata',
        status: 200,
        ok: true,
        resource: { asked: 'http://127.0.0.1:7430/mcp', upstream: 'https://other/mcp' },
      }),
    ];
    const [finding] = lintAuth(lines);
    expect(finding).toMatchObject({ rule: 'auth/resource-mismatch', line: 4 });
    expect(finding!.message).toContain('fetched for https://up/mcp names resource https://other/mcp');
    const same = lines
      .slice(0, 3)
      .concat(
        oauth('h2', { step: 'resource-metadata', ok: true, resource: { upstream: 'https://up/mcp/' } }),
      );
    expect(lintAuth(same)).toEqual([]);
  });

  it('find a token refused for its audience, and a call refused for its scope', () => {
    const findings = lintAuth([
      meta,
      oauth('h9', {
        step: 'call',
        status: 401,
        ok: false,
        token: '[REDACTED:oauth-access-token:0123456789ab]',
        reason: 'invalid_token: Token was not issued for this resource',
        challenge: { error: 'invalid_token' },
      }),
      oauth('h10', {
        step: 'call',
        status: 403,
        ok: false,
        reason: 'insufficient_scope: Insufficient scope',
        challenge: { error: 'insufficient_scope', scope: 'mcp admin' },
      }),
    ]);
    expect(findings.map((f) => [f.rule, f.line])).toEqual([
      ['auth/audience-mismatch', 2],
      ['auth/insufficient-scope', 3],
    ]);
    expect(findings[1]!.message).toContain('needs mcp admin');
  });

  it('warn when fewer scopes are granted than asked', () => {
    const findings = lintAuth([
      meta,
      oauth('h8', {
        step: 'token',
        status: 200,
        ok: true,
        request: { scope: 'mcp admin' },
        response: { scope: 'mcp' },
      }),
      oauth('h9', {
        step: 'refresh',
        status: 200,
        ok: true,
        request: { scope: 'mcp' },
        response: { scope: 'mcp' },
      }),
    ]);
    expect(findings).toEqual([
      {
        rule: 'auth/scope-not-granted',
        line: 2,
        severity: 'warning',
        message: expect.stringContaining('admin not granted'),
      },
    ]);
  });

  it('name every rule with a severity and a description', () => {
    for (const [id, rule] of Object.entries(AUTH_RULES)) {
      expect(id).toMatch(/^auth\/[a-z-]+$/);
      expect(rule.description.length).toBeGreaterThan(20);
    }
    expect(resourceForMetadataUrl('https://h/.well-known/oauth-protected-resource')).toBe('https://h');
  });
});
