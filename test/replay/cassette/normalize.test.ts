import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  createNormalizer,
  DEFAULT_NORMALIZATION,
} from '../../../src/replay/cassette/normalize.js';
import { compileIgnorePath, removePaths } from '../../../src/replay/cassette/paths.js';

const key = (method: string, params?: object, options = {}) => {
  const n = createNormalizer(options);
  return n.key(n.normalize(method, params as never));
};

describe('canonical JSON', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }, 1] })).toBe('{"a":[{"c":3,"d":2},1],"b":1}');
  });

  it('gives one text per value whatever the key order, at any depth, without touching the input', () => {
    const a = JSON.parse('{"z":{"y":[{"b":1,"a":2}],"x":null},"10":1,"9":2,"m":"s"}');
    const b = JSON.parse('{"9":2,"m":"s","10":1,"z":{"x":null,"y":[{"a":2,"b":1}]}}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(JSON.parse(canonicalJson(a))).toEqual(a);
    expect(Object.keys(a.z)).toEqual(['y', 'x']);
    expect(canonicalJson({ a: 1, b: { c: [1, 'x'] } })).toBe('{"a":1,"b":{"c":[1,"x"]}}');
  });

  it('keeps a "__proto__" key as data', () => {
    const value = JSON.parse('{"b":1,"__proto__":{"polluted":true}}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"polluted":true},"b":1}');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('default normalization', () => {
  it('ignores progress tokens, trace context and the 2026 per-request protocol facts', () => {
    const plain = key('tools/call', { name: 'echo', arguments: { m: 'hi' } });
    const noisy = key('tools/call', {
      name: 'echo',
      arguments: { m: 'hi' },
      _meta: {
        progressToken: 7,
        traceparent: '00-abc-def-01',
        tracestate: 'x=1',
        baggage: 'k=v',
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
      },
    });
    expect(noisy).toBe(plain);
    expect(plain).toBe('tools/call {"arguments":{"m":"hi"},"name":"echo"}');
  });

  it('keeps _meta keys it does not know about: they may change what the server does', () => {
    expect(key('tools/call', { name: 'x', _meta: { tenant: 'a' } })).not.toBe(
      key('tools/call', { name: 'x' }),
    );
  });

  it('treats missing params like empty ones', () => {
    expect(key('tools/list')).toBe(key('tools/list', {}));
    expect(key('tools/list', { _meta: { progressToken: 1 } })).toBe('tools/list {}');
  });

  it('matches initialize across client versions, protocol versions and capabilities', () => {
    const a = key('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'mcporter', version: '0.12.3' },
    });
    const b = key('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { sampling: {}, roots: { listChanged: true } },
      clientInfo: { name: 'probe', version: '9.9.9' },
    });
    expect(a).toBe(b);
  });

  it('matches server/discover by method alone', () => {
    expect(key('server/discover', { _meta: { x: 1 }, anything: true })).toBe('server/discover {}');
  });

  it('drops the opaque requestState of a 2026 retry but keeps its inputResponses', () => {
    const retry = (state: string, region: string) =>
      key('tools/call', {
        name: 'deploy',
        inputResponses: { region: { action: 'accept', content: { region } } },
        requestState: state,
      });
    expect(retry('v1.aaa', 'eu')).toBe(retry('v1.bbb', 'eu'));
    expect(retry('v1.aaa', 'eu')).not.toBe(retry('v1.aaa', 'us'));
  });

  it('is data a caller can change', () => {
    const rules = { ...DEFAULT_NORMALIZATION, metaKeys: [] };
    expect(key('tools/list', { _meta: { progressToken: 1 } }, { rules })).toBe(
      'tools/list {"_meta":{"progressToken":1}}',
    );
  });
});

describe('ignore paths', () => {
  it('leave out what they select, in params and below', () => {
    const ignore = ['$.params.arguments.timestamp', '$..requestId'];
    const a = key(
      'tools/call',
      { name: 'now', arguments: { timestamp: 1, deep: { requestId: 'a' } } },
      { ignore },
    );
    const b = key(
      'tools/call',
      { name: 'now', arguments: { timestamp: 2, deep: { requestId: 'b' } } },
      { ignore },
    );
    expect(a).toBe(b);
    expect(a).toBe('tools/call {"arguments":{"deep":{}},"name":"now"}');
  });

  it('drop selected array items so the rest still line up', () => {
    expect(removePaths({ xs: [1, 2, 3] }, [compileIgnorePath('$.xs[1]')])).toEqual({ xs: [1, 3] });
  });

  it('reject a malformed path with a usage error naming it', () => {
    expect(() => createNormalizer({ ignore: ['params.x'] })).toThrow(/bad ignore path: JSONPath "params.x"/);
    expect(() => compileIgnorePath('$.a[')).toThrow(expect.objectContaining({ code: 'usage' }));
  });

  it('take compiled paths through the IgnorePath interface', () => {
    const everyName = {
      source: 'names',
      matches: (at: readonly (string | number)[]) => at.at(-1) === 'name',
    };
    expect(key('tools/call', { name: 'a', arguments: {} }, { ignore: [everyName] })).toBe(
      'tools/call {"arguments":{}}',
    );
  });

  it('run before a custom normalization step', () => {
    const normalize = (r: { method: string; params: Record<string, unknown> }) => ({
      method: r.method,
      params: { ...r.params, arguments: {} },
    });
    expect(key('tools/call', { name: 'a', arguments: { x: 1 } }, { normalize })).toBe(
      'tools/call {"arguments":{},"name":"a"}',
    );
  });
});
