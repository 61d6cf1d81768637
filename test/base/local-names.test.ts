import { describe, expect, it } from 'vitest';
import { duplicateHost, hostName, isLocalName, judgeHostOrigin } from '../../src/base/local-names.js';

describe('local names (DNS-rebinding protection)', () => {
  it('takes the host name out of a Host value or authority', () => {
    expect(hostName(' LocalHost:7430 ')).toBe('localhost');
    expect(hostName('[::1]:80')).toBe('[::1]');
    expect(hostName('example.com')).toBe('example.com');
  });

  it('counts loopback names and addresses as this machine, and nothing else', () => {
    for (const name of ['localhost', '127.0.0.1', '127.4.5.6', '::1', '[::1]', 'app.localhost'])
      expect(isLocalName(name)).toBe(true);
    for (const name of ['evil.example', '10.0.0.1', 'localhost.evil.example', '128.0.0.1'])
      expect(isLocalName(name)).toBe(false);
  });

  it('judges Host first, then Origin, and lets allowed names through', () => {
    const none = () => false;
    expect(judgeHostOrigin(undefined, undefined, none)).toEqual({ kind: 'no-host' });
    expect(judgeHostOrigin('evil.example:80', undefined, none)).toEqual({
      kind: 'host',
      name: 'evil.example',
    });
    expect(judgeHostOrigin('localhost:80', 'null', none)).toEqual({ kind: 'origin-invalid' });
    expect(judgeHostOrigin('localhost:80', 'file:///tmp/page.html', none)).toEqual({
      kind: 'origin-invalid',
    });
    expect(judgeHostOrigin('localhost:80', 'http://evil.example', none)).toEqual({
      kind: 'origin',
      name: 'evil.example',
      own: 'http://localhost',
    });
    expect(judgeHostOrigin('mcp.example:80', undefined, (name) => name === 'mcp.example')).toEqual({
      kind: 'ok',
    });
  });

  it("takes only the listener's own origin from a local page: scheme, host and port", () => {
    const none = () => false;
    expect(judgeHostOrigin('127.0.0.1:7420', 'http://127.0.0.1:7420', none)).toEqual({ kind: 'ok' });
    expect(judgeHostOrigin('LocalHost', 'http://localhost:80', none)).toEqual({ kind: 'ok' });
    expect(judgeHostOrigin('[::1]:7420', 'http://[::1]:7420', none)).toEqual({ kind: 'ok' });
    for (const origin of [
      'http://localhost:8080',
      'http://localhost:7420',
      'https://127.0.0.1:7420',
      'http://127.0.0.1:3000',
      'http://app.localhost:7420',
    ]) {
      expect(judgeHostOrigin('127.0.0.1:7420', origin, none)).toMatchObject({
        kind: 'origin',
        own: 'http://127.0.0.1:7420',
      });
    }
    // A name the user allowed passes by name, any scheme or port (a TLS proxy in front, say).
    const allowed = (name: string) => name === 'trace.example';
    expect(judgeHostOrigin('trace.example', 'https://trace.example', allowed)).toEqual({ kind: 'ok' });
  });

  it('holds a listener that passes its port to Host naming that port', () => {
    const none = () => false;
    expect(judgeHostOrigin('127.0.0.1:7420', undefined, none, 7420)).toEqual({ kind: 'ok' });
    expect(judgeHostOrigin('localhost:7420', 'http://localhost:7420', none, 7420)).toEqual({ kind: 'ok' });
    expect(judgeHostOrigin('localhost', undefined, none, 80)).toEqual({ kind: 'ok' });
    for (const host of ['127.0.0.1:7421', 'localhost', '127.0.0.1:7420x', '[::1]:80'])
      expect(judgeHostOrigin(host, undefined, none, 7420)).toMatchObject({ kind: 'host' });
    expect(judgeHostOrigin('evil.example:7420', undefined, none, 7420)).toEqual({
      kind: 'host',
      name: 'evil.example',
    });
  });

  it('counts Host headers in the raw headers', () => {
    expect(duplicateHost(['Host', 'a', 'Accept', '*/*'])).toBeUndefined();
    expect(duplicateHost(undefined)).toBeUndefined();
    expect(duplicateHost(['Host', 'a', 'host', 'b'])).toBe(
      'the request has 2 Host headers; send exactly one',
    );
  });
});
