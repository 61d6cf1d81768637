import { describe, expect, it } from 'vitest';
import {
  challengeParams,
  rewriteChallenge,
  rewriteResourceMetadata,
  rewriteServerMetadata,
} from '../../../src/proxy/oauth/documents.js';
import { mapFormResource } from '../../../src/proxy/oauth/facts.js';
import { OAuthMounts } from '../../../src/proxy/oauth/mounts.js';
import { hideUrlSecrets, OAuthSecrets } from '../../../src/proxy/oauth/secrets.js';

const proxy = 'http://127.0.0.1:7430';

describe('the OAuth mounts of a proxy', () => {
  it('serve the upstream origin path for path and another origin under a numbered mount', () => {
    const mounts = new OAuthMounts(new URL('https://mcp.example.com/mcp'));
    expect(mounts.toProxy('https://mcp.example.com/token', proxy)).toBe(`${proxy}/token`);
    expect(mounts.toProxy('https://auth.example.com/t1/token', proxy)).toBe(
      `${proxy}/.tapedeck/oauth/0/t1/token`,
    );
    expect(mounts.toProxy('https://auth.example.com/.well-known/oauth-authorization-server/t1', proxy)).toBe(
      `${proxy}/.well-known/oauth-authorization-server/.tapedeck/oauth/0/t1`,
    );
    expect(mounts.toTarget('/.tapedeck/oauth/0/t1/token')?.target.href).toBe(
      'https://auth.example.com/t1/token',
    );
    expect(mounts.toTarget('/.well-known/oauth-authorization-server/.tapedeck/oauth/0/t1')?.target.href).toBe(
      'https://auth.example.com/.well-known/oauth-authorization-server/t1',
    );
    expect(mounts.toTarget('/.tapedeck/oauth/7/token')).toBeUndefined();
    expect(mounts.toProxy('urn:x', proxy)).toBe('urn:x');
  });

  it('name the upstream resource on the proxy and map it back to exactly what the upstream named', () => {
    const mounts = new OAuthMounts(new URL('http://10.0.0.5:3000/mcp'));
    expect(mounts.proxyResource('https://mcp.example.com/mcp', proxy)).toBe(`${proxy}/mcp`);
    expect(mounts.upstreamResource(`${proxy}/mcp`, proxy)).toBe('https://mcp.example.com/mcp');
    expect(mounts.upstreamResource(`${proxy}/other`, proxy)).toBe('http://10.0.0.5:3000/other');
    expect(mounts.upstreamResource('https://elsewhere.example/x', proxy)).toBe('https://elsewhere.example/x');
  });
});

describe('the OAuth documents, rewritten', () => {
  const mounts = () => new OAuthMounts(new URL('https://mcp.example.com/mcp'));

  it('name the proxy in protected-resource metadata, and leave a document that binds tokens alone', () => {
    const doc = {
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
    };
    const out = rewriteResourceMetadata(doc, mounts(), proxy);
    expect(out.doc).toEqual({
      resource: `${proxy}/mcp`,
      authorization_servers: [`${proxy}/.tapedeck/oauth/0/`],
    });
    expect(out.resource).toEqual({ upstream: 'https://mcp.example.com/mcp', proxy: `${proxy}/mcp` });
    const bound = { ...doc, dpop_bound_access_tokens_required: true };
    expect(rewriteResourceMetadata(bound, mounts(), proxy)).toEqual({ doc: bound, binding: 'DPoP' });
    const mtls = { ...doc, tls_client_certificate_bound_access_tokens: true };
    expect(rewriteResourceMetadata(mtls, mounts(), proxy).binding).toBe('mutual TLS');
  });

  it('move the issuer and endpoints of authorization-server metadata to the proxy, learning each endpoint', () => {
    const learned: [string, string][] = [];
    const out = rewriteServerMetadata(
      {
        issuer: 'https://mcp.example.com/',
        authorization_endpoint: 'https://mcp.example.com/authorize',
        token_endpoint: 'https://mcp.example.com/token',
        jwks_uri: 'https://mcp.example.com/jwks',
      },
      mounts(),
      proxy,
      (path, kind) => learned.push([path, kind]),
    );
    expect(out).toEqual({
      issuer: `${proxy}/`,
      authorization_endpoint: `${proxy}/authorize`,
      token_endpoint: `${proxy}/token`,
      jwks_uri: 'https://mcp.example.com/jwks',
    });
    expect(learned).toEqual([
      ['/authorize', 'authorize'],
      ['/token', 'token'],
    ]);
  });

  it('point a challenge at the proxy and read its parameters', () => {
    const value =
      'Bearer error="invalid_token", error_description="Token has expired", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"';
    expect(rewriteChallenge(value, mounts(), proxy)).toContain(
      `resource_metadata="${proxy}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(challengeParams(value)).toMatchObject({
      scheme: 'bearer',
      error: 'invalid_token',
      error_description: 'Token has expired',
    });
  });

  it('map every resource of a token form back, leaving the rest of the form as sent', () => {
    const form = 'grant_type=refresh_token&refresh_token=r&resource=http%3A%2F%2F127.0.0.1%3A7430%2Fmcp';
    expect(mapFormResource(form, () => 'https://mcp.example.com/mcp')).toBe(
      'grant_type=refresh_token&refresh_token=r&resource=https%3A%2F%2Fmcp.example.com%2Fmcp',
    );
    expect(mapFormResource('grant_type=x', () => 'never')).toBe('grant_type=x');
  });
});

describe('the OAuth secrets of a recording', () => {
  it('are stable keyed hashes: the same value, the same marker; another recording, another marker', () => {
    const one = new OAuthSecrets();
    expect(one.marker('access-token', 'abc')).toBe(one.marker('access-token', 'abc'));
    expect(one.marker('access-token', 'abc')).toMatch(/^\[REDACTED:oauth-access-token:[0-9a-f]{12}\]$/);
    expect(new OAuthSecrets().marker('access-token', 'abc')).not.toBe(one.marker('access-token', 'abc'));
    expect(one.authorization('Bearer abc')).toBe(one.marker('access-token', 'abc'));
    const url = hideUrlSecrets('https://as/authorize?client_id=c&state=s3cr3t&code=c0de', one);
    expect(url).not.toContain('s3cr3t');
    expect(url).not.toContain('c0de');
    expect(url).toContain('client_id=c&state=[REDACTED:oauth-state:');
  });
});

describe('an upstream that binds tokens to the client', () => {
  it('gets its metadata passed on unchanged and one notice naming how it binds them', async () => {
    const { startUpstream, startRecording } = await import('../../helpers/http-proxy.js');
    const upstream = await startUpstream((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: 'https://x/mcp', dpop_bound_access_tokens_required: true }));
    });
    const notices: unknown[] = [];
    const rec = await startRecording(`${upstream.origin}/mcp`, { onNotice: (n) => notices.push(n) });
    try {
      const base = new URL(rec.proxy.url).origin;
      const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
      expect(await res.json()).toEqual({
        resource: 'https://x/mcp',
        dpop_bound_access_tokens_required: true,
      });
      expect(notices).toEqual([{ kind: 'oauth-bound', status: 200, path: 'DPoP' }]);
    } finally {
      await rec.stop();
      await upstream.close();
    }
  });
});

describe('a metadata document that moved', () => {
  it('is redirected to its new place behind the proxy, where it is rewritten', async () => {
    const { startUpstream, startRecording } = await import('../../helpers/http-proxy.js');
    const upstream = await startUpstream((req, res) => {
      req.resume();
      if (req.url === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(301, { location: '/.well-known/oauth-protected-resource/v2/mcp' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: `http://${req.headers.host}/mcp`, authorization_servers: [] }));
    });
    const rec = await startRecording(`${upstream.origin}/mcp`);
    try {
      const base = new URL(rec.proxy.url).origin;
      const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
      expect(res.url).toBe(`${base}/.well-known/oauth-protected-resource/v2/mcp`);
      expect(((await res.json()) as { resource: string }).resource).toBe(`${base}/mcp`);
    } finally {
      await rec.stop();
      await upstream.close();
    }
  });
});

describe('record --oauth', () => {
  it('takes map or passthrough, and only with --upstream and without --stdio; anything else is one line and exit 2', async () => {
    const { run } = await import('../../../src/cli/main.js');
    const { memoryIo } = await import('../../helpers/cli.js');
    const cases: [string[], string][] = [
      [
        ['--upstream', 'http://127.0.0.1:1/mcp', '--oauth', 'nope'],
        "--oauth must be map or passthrough; got 'nope'",
      ],
      [['--oauth', 'map', '--', 'node', 'x.js'], '--oauth only applies with --upstream URL'],
      [
        ['--upstream', 'http://127.0.0.1:1/mcp', '--stdio', '--oauth', 'map'],
        '--oauth does not apply with --stdio',
      ],
    ];
    for (const [args, message] of cases) {
      const io = memoryIo();
      expect(await run(['record', ...args], io)).toBe(2);
      expect(io.stderr.text.trim().split('\n')).toHaveLength(1);
      expect(io.stderr.text).toContain(message);
    }
  });
});
