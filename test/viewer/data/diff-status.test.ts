import { describe, expect, it } from 'vitest';
import { diffStatus } from '../../../viewer/src/data/diff-status.js';

describe('the diff view status', () => {
  it('says fixed when a failed call succeeds in the second trace, broke the other way round', () => {
    expect(diffStatus({ kind: 'changed', a: { outcome: 'error' }, b: { outcome: 'ok' } })).toBe('fixed');
    expect(diffStatus({ kind: 'changed', a: { outcome: 'tool_error' }, b: { outcome: 'ok' } })).toBe('fixed');
    expect(diffStatus({ kind: 'changed', a: { outcome: 'ok' }, b: { outcome: 'unanswered' } })).toBe('broke');
    expect(diffStatus({ kind: 'changed', a: { outcome: 'ok' }, b: { outcome: 'error' } })).toBe('broke');
  });

  it('keeps the alignment kind otherwise', () => {
    expect(diffStatus({ kind: 'changed', a: { outcome: 'ok' }, b: { outcome: 'ok' } })).toBe('changed');
    expect(diffStatus({ kind: 'changed', a: { outcome: 'error' }, b: { outcome: 'error' } })).toBe('changed');
    expect(diffStatus({ kind: 'same', a: { outcome: 'ok' }, b: { outcome: 'ok' } })).toBe('same');
    expect(diffStatus({ kind: 'added', a: undefined, b: { outcome: 'error' } })).toBe('added');
    expect(diffStatus({ kind: 'removed', a: { outcome: 'ok' }, b: undefined })).toBe('removed');
    // Still open in one trace: neither fixed nor broke.
    expect(diffStatus({ kind: 'changed', a: { outcome: 'open' }, b: { outcome: 'error' } })).toBe('changed');
  });
});
