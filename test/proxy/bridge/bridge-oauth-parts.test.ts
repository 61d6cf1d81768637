/**
 * The pieces of the bridge's sign-in: the loopback listener takes only its own path with the state it waits for,
 * and the store keeps a sign-in 0600 in a 0700 folder (or in memory only).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OAuthCallback } from '../../../src/proxy/bridge/oauth-callback.js';
import { OAuthStore } from '../../../src/proxy/bridge/oauth-store.js';
import { scratchDir } from '../../helpers/scratch.js';

describe('the loopback callback', () => {
  it('answers only its own path with the awaited state, and hands over the code once', async () => {
    const callback = new OAuthCallback();
    await callback.listen();
    try {
      expect(callback.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const stop = new AbortController();
      const state = callback.newState();
      const code = callback.code(state, stop.signal);
      const base = callback.url.replace('/callback', '');
      expect((await fetch(`${base}/other?code=x&state=${state}`)).status).toBe(404);
      expect((await fetch(`${callback.url}?code=x&state=wrong`)).status).toBe(400);
      expect((await fetch(`${callback.url}?code=the-code&state=${state}`)).status).toBe(200);
      await expect(code).resolves.toBe('the-code');
      expect((await fetch(`${callback.url}?code=again&state=${state}`)).status).toBe(400);
    } finally {
      await callback.close();
    }
  });

  it('rejects with the authorization server’s error, and when the recording ends first', async () => {
    const callback = new OAuthCallback();
    await callback.listen();
    try {
      const state = callback.newState();
      const denied = expect(callback.code(state, new AbortController().signal)).rejects.toThrow(
        'access_denied: no',
      );
      await fetch(`${callback.url}?error=access_denied&error_description=no&state=${state}`);
      await denied;
      const stop = new AbortController();
      const abandoned = callback.code(callback.newState(), stop.signal);
      stop.abort();
      await expect(abandoned).rejects.toThrow('the recording ended first');
    } finally {
      await callback.close();
    }
  });
});

describe('the sign-in store', () => {
  it('keeps one 0600 file per upstream in a 0700 folder, read back by the next store', () => {
    const folder = join(scratchDir('tapedeck-oauth-store-'), 'oauth');
    const store = new OAuthStore('https://mcp.example.com/mcp', folder);
    store.update({ tokens: { access_token: 'a', token_type: 'bearer' } });
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(folder);
    expect(statSync(join(folder, file!)).mode & 0o777).toBe(0o600);
    expect(new OAuthStore('https://mcp.example.com/mcp', folder).tokens?.access_token).toBe('a');
    expect(new OAuthStore('https://other.example.com/mcp', folder).tokens).toBeUndefined();
    store.forget('tokens');
    expect(new OAuthStore('https://mcp.example.com/mcp', folder).tokens).toBeUndefined();
  });

  it('without a folder keeps everything in memory', () => {
    const store = new OAuthStore('https://mcp.example.com/mcp', undefined);
    store.update({ tokens: { access_token: 'a', token_type: 'bearer' } });
    expect(store.path).toBeUndefined();
    expect(store.tokens?.access_token).toBe('a');
  });
});
