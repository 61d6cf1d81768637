import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/instrument/clock.js';
import { targetOf } from '../../src/instrument/event.js';
import { bearerToken, checkUser, identityOf } from '../../src/instrument/identity.js';
import { BoundedQueue } from '../../src/instrument/queue.js';
import type { ConnectionTap } from '../../src/instrument/tap.js';
import { parseTraceparent, traceContextOf } from '../../src/instrument/trace-context.js';
import { WireLog } from '../../src/instrument/wire-log.js';

describe('instrument helpers', () => {
  it('parses a W3C traceparent and refuses malformed ones', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      flags: 1,
    });
    for (const bad of [
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      'not a traceparent',
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-later')?.flags).toBe(0);
    expect(traceContextOf({ _meta: { traceparent: 'junk', tracestate: 'a=1' } })).toBeUndefined();
    expect(traceContextOf(undefined)).toBeUndefined();
  });

  it('names the target of each request kind', () => {
    expect(targetOf('tools/call', { name: 'echo' })).toBe('echo');
    expect(targetOf('prompts/get', { name: 'greet' })).toBe('greet');
    expect(targetOf('resources/read', { uri: 'file:///a' })).toBe('file:///a');
    expect(targetOf('resources/subscribe', { uri: 'file:///b' })).toBe('file:///b');
    expect(targetOf('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' } })).toBe('greet');
    expect(targetOf('completion/complete', { ref: { type: 'ref/resource', uri: 'file:///{x}' } })).toBe(
      'file:///{x}',
    );
    expect(targetOf('tools/list', {})).toBeUndefined();
    expect(targetOf('tools/call', undefined)).toBeUndefined();
  });

  it('reads bearer tokens, checks users and walks the identity chain', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken(['bearer  xyz '])).toBe('xyz');
    expect(bearerToken('Basic dXNlcg==')).toBeUndefined();
    expect(checkUser({ id: 'u', name: 'U', extra: 1 })).toEqual({ user: { id: 'u', name: 'U' } });
    expect(checkUser({ id: '' })).toHaveProperty('problem');
    expect(checkUser('u')).toHaveProperty('problem');
    expect(checkUser(undefined)).toBeUndefined();
    expect(identityOf({ id: 'u' }, { token: 't' })).toEqual({ kind: 'user', key: 'u' });
    expect(identityOf(undefined, { token: 't', peerAddress: '1.2.3.4' }).kind).toBe('token');
    const a = identityOf(undefined, { peerAddress: '1.2.3.4', userAgent: 'x' });
    const b = identityOf(undefined, { peerAddress: '1.2.3.4', userAgent: 'y' });
    expect(a.kind).toBe('address');
    expect(a.key).not.toBe(b.key);
    expect(identityOf(undefined, {}).kind).toBe('process');
  });

  it('formats timestamps exactly like toISOString', () => {
    const base = Date.UTC(2026, 10, 30, 23, 59, 58, 0);
    for (const ms of [base, base + 7, base + 42.9, base + 999, base + 1000, base + 2001, 0]) {
      expect(isoTime(ms)).toBe(new Date(Math.floor(ms)).toISOString());
    }
  });

  it('keeps a queue bounded, dropping the oldest', () => {
    const queue = new BoundedQueue<number>(3);
    expect([1, 2, 3].map((n) => queue.push(n))).toEqual([false, false, false]);
    expect(queue.push(4)).toBe(true);
    expect(queue.length).toBe(3);
    expect(queue.take(2)).toEqual([2, 3]);
    queue.push(5);
    expect(queue.take(10)).toEqual([4, 5]);
    expect(queue.length).toBe(0);
  });
});

describe('WireLog', () => {
  /** A stand-in tap that lists what it is handed, in order. */
  function listingTap(seen: string[]): ConnectionTap {
    return {
      incoming: (message: { id: number }, _extra: unknown, hr: number) =>
        seen.push(`in ${message.id} ${hr > 0}`),
      outgoing: (message: { id: number }, related: unknown) =>
        seen.push(`out ${message.id} ${String(related)}`),
      closed: () => seen.push('closed'),
    } as unknown as ConnectionTap;
  }

  it('hands messages to their taps in order, with clock readings, and empties itself', () => {
    const seen: string[] = [];
    const wakes: Array<[number, boolean]> = [];
    const log = new WireLog(3, (pending, full) => wakes.push([pending, full]));
    const tap = listingTap(seen);
    log.incoming(tap, { id: 1 }, undefined);
    log.outgoing(tap, { id: 2 }, 1);
    log.closed(tap);
    expect(log.length).toBe(3);
    // The third message fills the log: the owner is told to pair it where it stands.
    expect(wakes).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    log.drainInto((err) => {
      throw err;
    });
    expect(seen).toEqual(['in 1 true', 'out 2 1', 'closed']);
    expect(log.length).toBe(0);
  });

  it('reports a tap that throws and goes on with the next message', () => {
    const seen: string[] = [];
    const failures: string[] = [];
    const log = new WireLog(10, () => {});
    const broken = {
      incoming: () => {
        throw new Error('tap broke');
      },
    } as unknown as ConnectionTap;
    log.incoming(broken, { id: 1 }, undefined);
    log.incoming(listingTap(seen), { id: 2 }, undefined);
    log.drainInto((err) => failures.push((err as Error).message));
    expect(failures).toEqual(['tap broke']);
    expect(seen).toEqual(['in 2 true']);
  });
});
