import { describe, expect, it } from 'vitest';
import { TapedeckError } from '../../src/base/errors.js';
import { parseFaultSpec, parseSeed } from '../../src/faults/spec.js';

/** The one line a bad spec fails with. */
function refusal(spec: string): string {
  try {
    parseFaultSpec(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(TapedeckError);
    expect((error as TapedeckError).code).toBe('usage');
    return (error as Error).message;
  }
  throw new Error(`'${spec}' was accepted`);
}

describe('the fault spec grammar KIND[=VALUE][@MATCH][%PERCENT][#NTH]', () => {
  it('reads every kind with its value', () => {
    expect(parseFaultSpec('latency=200').action).toEqual({ kind: 'latency', ms: 200, jitterMs: 0 });
    expect(parseFaultSpec('latency=200~50').action).toEqual({ kind: 'latency', ms: 200, jitterMs: 50 });
    expect(parseFaultSpec('latency=1.5s~100ms').action).toEqual({ kind: 'latency', ms: 1500, jitterMs: 100 });
    expect(parseFaultSpec('error=-32000').action).toEqual({ kind: 'error', code: -32000 });
    expect(parseFaultSpec('error').action).toEqual({ kind: 'error', code: -32603 });
    expect(parseFaultSpec('slow-stream=200/s').action).toEqual({ kind: 'slow-stream', bytesPerSecond: 200 });
    expect(parseFaultSpec('slow-stream=2kb/s').action).toEqual({ kind: 'slow-stream', bytesPerSecond: 2048 });
    for (const kind of ['tool-error', 'drop', 'disconnect', 'malformed', 'duplicate'])
      expect(parseFaultSpec(kind).action).toEqual({ kind });
  });

  it('reads MATCH, PERCENT and NTH in any combination', () => {
    expect(parseFaultSpec('drop@tools/call:search%25#3-')).toMatchObject({
      action: { kind: 'drop' },
      match: { method: 'tools/call', name: 'search' },
      percent: 25,
      nth: { n: 3, onward: true },
      source: 'drop@tools/call:search%25#3-',
    });
    expect(parseFaultSpec('error=-32603#2')).toMatchObject({ nth: { n: 2, onward: false } });
    expect(parseFaultSpec('malformed%12.5')).toMatchObject({ percent: 12.5, match: undefined });
    expect(parseFaultSpec('duplicate@resources/read').match).toEqual({ method: 'resources/read' });
  });

  it('keeps a resource uri whole, colons, # and % included', () => {
    expect(parseFaultSpec('drop@resources/read:file:///tmp/a.txt').match).toEqual({
      method: 'resources/read',
      name: 'file:///tmp/a.txt',
    });
    expect(parseFaultSpec('drop@resources/read:demo://x%20y#top').match?.name).toBe('demo://x%20y#top');
    expect(parseFaultSpec('drop@resources/read:demo://x#top#2')).toMatchObject({
      match: { name: 'demo://x#top' },
      nth: { n: 2, onward: false },
    });
  });

  it('refuses bad specs in one line naming the bad part and what is expected', () => {
    expect(refusal('explode')).toBe(
      "--fault 'explode' has an unknown kind 'explode'; expected one of latency, error, tool-error, drop, disconnect, malformed, duplicate, slow-stream",
    );
    expect(refusal('latency')).toMatch(
      /has a bad value '' for latency; expected latency=MS or latency=MS~JITTER/,
    );
    expect(refusal('latency=fast')).toMatch(/bad value 'fast' for latency/);
    expect(refusal('error=oops')).toMatch(/bad value 'oops' for error; expected error=CODE/);
    expect(refusal('drop=3')).toMatch(/bad value '3' for drop; expected drop \(no value\)/);
    expect(refusal('slow-stream=fast')).toMatch(/expected slow-stream=BYTES\/S/);
    expect(refusal('drop%0')).toMatch(/bad %PERCENT '%0'; expected a number above 0 and at most 100/);
    expect(refusal('drop%101')).toMatch(/bad %PERCENT/);
    expect(refusal('drop#0')).toMatch(/bad #NTH '#0'; expected #N or #N-/);
    expect(refusal('drop@tools/list:x')).toMatch(/names 'x' after tools\/list, which has no named target/);
    expect(refusal('drop@tools/call:')).toMatch(/empty tool after 'tools\/call:'/);
    expect(refusal('tool-error@resources/read')).toMatch(/tool-error answers tools\/call only/);
    expect(refusal('')).toMatch(/is empty; expected KIND/);
    for (const spec of ['explode', 'latency', 'drop%0', 'drop@tools/list:x'])
      expect(refusal(spec)).not.toContain('\n');
  });

  it('reads a seed, and refuses what is not one', () => {
    expect(parseSeed('42')).toBe(42);
    expect(() => parseSeed('-1')).toThrow("--seed '-1' is not a seed; expected a whole number from 0");
    expect(() => parseSeed('abc')).toThrow(TapedeckError);
  });
});
