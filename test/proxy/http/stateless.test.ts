import { describe, expect, it } from 'vitest';
import { StatelessSessions } from '../../../src/proxy/http/stateless.js';
import type { Json } from '../../../src/trace/types.js';

const ERA = '2026-07-28';
const request = (client: string, version = ERA): Json => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
    },
  },
});

describe('stateless session keys', () => {
  it('keys by identity and client, announces each key once, and starts a new one after the idle gap', () => {
    let now = 0;
    const sessions = new StatelessSessions(() => now, 1000);
    const ada = { authorization: 'Bearer ada-token', 'user-agent': 'probe/1' };
    const bob = { authorization: 'Bearer bob-token', 'user-agent': 'probe/1' };
    const first = sessions.keyOf(ada, request('cli'))!;
    expect(first.announce).toEqual({
      sessionId: first.id,
      era: 'stateless',
      minted: true,
      protocolVersion: ERA,
      client: { name: 'cli', version: '1.0.0' },
    });
    now = 900;
    expect(sessions.keyOf(ada, request('cli'))).toEqual({ id: first.id });
    // Another client, or the same client under another identity: sessions of their own.
    const other = sessions.keyOf(ada, request('ide'))!;
    const bobs = sessions.keyOf(bob, request('cli'))!;
    expect(new Set([first.id, other.id, bobs.id]).size).toBe(3);
    // The key itself says nothing of the token.
    expect(JSON.stringify([first, other, bobs])).not.toContain('ada-token');
    now = 900 + 1001;
    const later = sessions.keyOf(ada, request('cli'))!;
    expect(later.id).not.toBe(first.id);
    expect(later.announce).toMatchObject({ sessionId: later.id, era: 'stateless' });
  });

  it('leaves alone a message of another era (no protocol version in its _meta)', () => {
    const sessions = new StatelessSessions(() => 0);
    expect(sessions.keyOf({}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })).toBeUndefined();
    expect(sessions.keyOf({}, { jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
    expect(sessions.keyOf({}, [request('batch')])?.announce).toMatchObject({ client: { name: 'batch' } });
  });
});
