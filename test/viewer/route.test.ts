import { describe, expect, it } from 'vitest';
import { formatHash, parseHash, withParams } from '../../viewer/src/route.js';

describe('the viewer route (every screen is a link)', () => {
  it('reads the home page, a view of the open files, and their parameters', () => {
    expect(parseHash('')).toEqual({ remote: undefined, view: 'home', params: {} });
    expect(parseHash('#/')).toEqual({ remote: undefined, view: 'home', params: {} });
    expect(parseHash('#/calls?sel=0.42&sort=-latency&q=a%20b')).toEqual({
      remote: undefined,
      view: 'calls',
      params: { sel: '0.42', sort: '-latency', q: 'a b' },
    });
    // An unknown view is the home page; parameters stay.
    expect(parseHash('#/nope?q=x')).toEqual({ remote: undefined, view: 'home', params: { q: 'x' } });
  });

  it('reads a collector trace and a share, in its own form and in the collector link form', () => {
    expect(parseHash('#/trace/abc-_1/tools?src=0')).toEqual({
      remote: { kind: 'trace', id: 'abc-_1' },
      view: 'tools',
      params: { src: '0' },
    });
    // A trace with no view named shows its timeline.
    expect(parseHash('#/share/S1')).toEqual({
      remote: { kind: 'share', id: 'S1' },
      view: 'timeline',
      params: {},
    });
    expect(parseHash('#trace=Qx9')).toEqual({
      remote: { kind: 'trace', id: 'Qx9' },
      view: 'timeline',
      params: {},
    });
    expect(parseHash('#share=s_2')).toEqual({
      remote: { kind: 'share', id: 's_2' },
      view: 'timeline',
      params: {},
    });
    // The link form takes ids of the collector's alphabet only.
    expect(parseHash('#trace=a/b').remote).toBeUndefined();
  });

  it('writes a route back to the same hash, leaving out empty parameters', () => {
    for (const hash of [
      '#/timeline?q=echo',
      '#/trace/abc/calls?sel=0.4',
      '#/share/xyz/raw?file=a.jsonl&line=5',
    ]) {
      expect(formatHash(parseHash(hash))).toBe(hash);
    }
    expect(formatHash({ remote: undefined, view: 'home', params: {} })).toBe('#/');
    expect(formatHash({ remote: { kind: 'trace', id: 'abc' }, view: 'home', params: {} })).toBe(
      '#/trace/abc/timeline',
    );
    expect(formatHash({ remote: undefined, view: 'diff', params: { a: '0', b: '', pair: '3' } })).toBe(
      '#/diff?a=0&pair=3',
    );
    expect(formatHash({ remote: { kind: 'trace', id: 'a b' }, view: 'raw', params: {} })).toBe(
      '#/trace/a%20b/raw',
    );
    expect(parseHash('#/trace/a%20b/raw').remote).toEqual({ kind: 'trace', id: 'a b' });
  });

  it('changes some parameters and keeps the rest', () => {
    const route = parseHash('#/timeline?q=echo&tool=add&sel=0.3');
    const next = withParams(route, { q: 'sum', tool: undefined, sel: '', err: '1' });
    expect(next.params).toEqual({ q: 'sum', err: '1' });
    expect(route.params).toEqual({ q: 'echo', tool: 'add', sel: '0.3' });
    expect(formatHash(next)).toBe('#/timeline?q=sum&err=1');
  });
});
