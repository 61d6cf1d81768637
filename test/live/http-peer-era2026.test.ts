/**
 * The 2026-07-28 era over Streamable HTTP with the real v2 server (`@modelcontextprotocol/server` 2.4.0, its
 * web-standard handler behind node:http): the live HTTP peer sends self-describing requests with the routing headers
 * the server checks (a wrong Mcp-Method or Mcp-Name is refused), there is no session, and the GET stream is 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpLivePeer } from '../../src/live/http-peer.js';
import { MemorySink } from '../../src/sink/memory.js';
import { newMeta } from '../../src/trace/meta.js';
import type { HttpLine } from '../../src/trace/types.js';
import { startEraEchoServer } from '../helpers/era2026.js';

const ERA = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': ERA,
  'io.modelcontextprotocol/clientInfo': { name: 'era-http-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const server = await startEraEchoServer('era-http-fixture');
  url = server.url;
  close = server.close;
});

afterAll(() => close?.());

describe('a 2026-07-28 server over Streamable HTTP', () => {
  it('answers server/discover and tools/call sent with the era’s routing headers, sessionless', async () => {
    const sink = new MemorySink();
    sink.start(newMeta({ label: 'era', transport: 'http', url }));
    const peer = await HttpLivePeer.start({ kind: 'http', url }, { capture: sink, requestTimeoutMs: 5000 });
    const discover = await peer.request('server/discover', { _meta: META });
    const call = await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: META });
    await peer.close();
    expect(discover).toMatchObject({ kind: 'response', message: { result: { supportedVersions: [ERA] } } });
    expect(call).toMatchObject({
      kind: 'response',
      message: { result: { content: [{ type: 'text', text: 'echo: hi' }], resultType: 'complete' } },
    });
    const http = sink.lines.filter((line): line is HttpLine => line.type === 'http');
    const posts = http.filter((line) => line.dir === 'in' && line.method === 'POST');
    expect(posts[1]?.headers).toMatchObject({
      'mcp-protocol-version': ERA,
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    });
    expect(http.every((line) => line.conn === '')).toBe(true);
    expect(http.some((line) => line.method === 'DELETE')).toBe(false);
  });
});
