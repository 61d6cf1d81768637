import { describe, expect, it } from 'vitest';
import {
  ERA2026_VERSION_KEY,
  eraVersionOf,
  headerObject,
  postHeaders,
  sessionHeaders,
} from '../../src/upstream/headers.js';

const ERA = { [ERA2026_VERSION_KEY]: '2026-07-28' };

describe('the headers a POST carries', () => {
  it('for the handshake eras: the session and the version the initialize answer settled on', () => {
    expect(
      postHeaders(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
        { sessionId: 's-1', protocolVersion: '2025-11-25' },
        { Authorization: 'Bearer t', 'Content-Type': 'text/plain' },
      ),
    ).toEqual({
      authorization: 'Bearer t',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': 's-1',
      'mcp-protocol-version': '2025-11-25',
    });
    expect(
      postHeaders(
        { jsonrpc: '2.0', id: 0, method: 'initialize' },
        { sessionId: undefined, protocolVersion: undefined },
        {},
      ),
    ).toEqual({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
  });

  it('for a 2026-07-28 message: its own version, the method, and the name of what it calls', () => {
    const none = { sessionId: undefined, protocolVersion: undefined };
    const call = (method: string, params: Record<string, unknown>) =>
      postHeaders({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ERA } }, none, {});
    expect(call('tools/call', { name: 'echo' })).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    });
    expect(call('resources/read', { uri: 'file:///a' })['mcp-name']).toBe('file:///a');
    expect(call('prompts/get', { name: 'greet' })['mcp-name']).toBe('greet');
    expect(call('tools/list', {})).not.toHaveProperty('mcp-name');
    // A batch is described by its first message.
    expect(
      postHeaders(
        [
          { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ERA } },
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', _meta: ERA } },
        ],
        none,
        {},
      )['mcp-method'],
    ).toBe('tools/list');
  });

  it('reads the era from _meta only, and gives headers back as a plain object', () => {
    expect(eraVersionOf({ jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: ERA } })).toBe('2026-07-28');
    expect(
      eraVersionOf({ jsonrpc: '2.0', id: 1, method: 'm', params: { protocolVersion: '2026-07-28' } }),
    ).toBeUndefined();
    expect(eraVersionOf(undefined)).toBeUndefined();
    expect(sessionHeaders({ sessionId: undefined, protocolVersion: '2025-06-18' })).toEqual({
      'mcp-protocol-version': '2025-06-18',
    });
    const headers = new Headers([
      ['Set-Cookie', 'a=1'],
      ['X-Thing', 'one'],
      ['x-thing', 'two'],
    ]);
    expect(headerObject(headers)).toEqual({ 'set-cookie': 'a=1', 'x-thing': 'one, two' });
  });
});
