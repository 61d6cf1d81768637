import { describe, expect, it } from 'vitest';
import { withoutPaths } from '../../../viewer/src/data/without-paths.js';

describe('the bad-file banner', () => {
  it('names files, never the folders they sit in', () => {
    expect(withoutPaths('notes.md: /tmp/tapedeck-x/notes.md is in no format tapedeck reads')).toBe(
      'notes.md: notes.md is in no format tapedeck reads',
    );
    expect(withoutPaths("b.jsonl: cannot read 'C:\\Users\\me\\traces\\b.jsonl'")).toBe(
      "b.jsonl: cannot read 'b.jsonl'",
    );
    expect(withoutPaths('Could not read the traces: fetch answered 404')).toBe(
      'Could not read the traces: fetch answered 404',
    );
  });
});
