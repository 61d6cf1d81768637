/**
 * The viewer's security headers: no framing by default, framing by the origins `tapedeck view --embed` names and
 * no one else, and `--embed` values that can only ever be a frame-ancestors source.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  frameAncestor,
  VIEWER_SECURITY_HEADERS,
  viewerSecurityHeaders,
} from '../../src/base/viewer-headers.js';
import { collectEmbed } from '../../src/cli/commands/view.js';
import { startViewServer } from '../../src/view/server.js';

const root = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-headers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function headersOf(port: number, path: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the viewer’s security headers', () => {
  it('forbid framing by default', () => {
    expect(viewerSecurityHeaders()).toEqual(VIEWER_SECURITY_HEADERS);
    expect(VIEWER_SECURITY_HEADERS['x-frame-options']).toBe('DENY');
    expect(VIEWER_SECURITY_HEADERS['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('let exactly the origins given frame the viewer, dropping X-Frame-Options, the rest of the policy kept', () => {
    const headers = viewerSecurityHeaders(['https://dash.example.com', 'http://localhost:*']);
    expect(headers['x-frame-options']).toBeUndefined();
    const csp = headers['content-security-policy']!;
    expect(csp).toContain('frame-ancestors https://dash.example.com http://localhost:*;');
    expect(csp).not.toContain("frame-ancestors 'none'");
    expect(csp.replace(/frame-ancestors [^;]*/, '')).toBe(
      VIEWER_SECURITY_HEADERS['content-security-policy']!.replace(/frame-ancestors [^;]*/, ''),
    );
    expect(headers['referrer-policy']).toBe('no-referrer');
  });

  it('take an --embed value only when it is an origin, a scheme, self or *', () => {
    expect(frameAncestor('https://dash.example.com/')).toBe('https://dash.example.com');
    expect(frameAncestor('http://localhost:3000')).toBe('http://localhost:3000');
    expect(frameAncestor('http://localhost:*')).toBe('http://localhost:*');
    expect(frameAncestor('https://*.example.com')).toBe('https://*.example.com');
    expect(frameAncestor('vscode-webview:')).toBe('vscode-webview:');
    expect(frameAncestor('self')).toBe("'self'");
    expect(frameAncestor('*')).toBe('*');
    for (const bad of [
      'x; script-src *',
      'https://a.example/path',
      "'unsafe-inline'",
      'a b',
      'example.com',
      '',
    ])
      expect(frameAncestor(bad)).toBeUndefined();
    expect(collectEmbed('https://b.example', collectEmbed('https://a.example'))).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
    expect(() => collectEmbed('javascript:alert(1) x')).toThrow(
      /^--embed takes an origin that may frame the viewer .*; got 'javascript:alert\(1\) x'$/,
    );
  });

  it('are what tapedeck view sends: framing refused, unless --embed named the page', async () => {
    const viewer = join(root, 'viewer');
    mkdirSync(viewer, { recursive: true });
    writeFileSync(join(viewer, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
    const token = 'e'.repeat(32);
    const closed = await startViewServer({ files: [], dir: viewer, token });
    const open = await startViewServer({
      files: [],
      dir: viewer,
      token,
      frameAncestors: ['http://localhost:5173'],
    });
    try {
      const refusing = await headersOf(closed.port, `/${token}/`);
      expect(refusing['x-frame-options']).toBe('DENY');
      expect(refusing['content-security-policy']).toContain("frame-ancestors 'none'");
      const allowing = await headersOf(open.port, `/${token}/?embed=1`);
      expect(allowing['x-frame-options']).toBeUndefined();
      expect(allowing['content-security-policy']).toContain('frame-ancestors http://localhost:5173;');
      expect(allowing['cache-control']).toBe('no-store');
      // Refusals carry them too.
      expect((await headersOf(open.port, '/no-token/'))['content-security-policy']).toContain(
        'frame-ancestors http://localhost:5173;',
      );
    } finally {
      await closed.close();
      await open.close();
    }
  });
});
