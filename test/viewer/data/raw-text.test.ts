import { describe, expect, it } from 'vitest';
import { bytesText, linesText } from '../../../viewer/src/data/raw-text.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('the raw text of a trace file, line by line', () => {
  it('numbers lines from 1, drops the CR of CRLF, and counts a last line without a newline', () => {
    const raw = bytesText('a.jsonl', bytes('{"a":1}\r\nbb\nccc'));
    expect(raw.path).toBe('a.jsonl');
    expect(raw.lineCount()).toBe(3);
    expect([raw.line(1), raw.line(2), raw.line(3)]).toEqual(['{"a":1}', 'bb', 'ccc']);
    expect([raw.line(0), raw.line(4)]).toEqual(['', '']);
    expect(raw.size()).toBe(15);
  });

  it('does not count the empty line after a final newline, nor any line of an empty file', () => {
    expect(bytesText('a', bytes('x\ny\n')).lineCount()).toBe(2);
    expect(bytesText('a', bytes('x\n\ny\n')).lineCount()).toBe(3);
    expect(bytesText('a', new Uint8Array(0)).lineCount()).toBe(0);
  });

  it('cuts a long line to the characters asked for, multi-byte characters whole', () => {
    const raw = bytesText('a', bytes(`${'é'.repeat(10)}\n${'x'.repeat(5000)}`));
    expect(raw.line(1, 3)).toBe('ééé');
    expect(raw.line(2, 600)).toBe('x'.repeat(600));
    expect(raw.line(2)).toHaveLength(5000);
  });

  it('indexes a download again as it grows', () => {
    let current = bytes('one\n');
    const raw = bytesText('a', () => current);
    expect(raw.lineCount()).toBe(1);
    current = bytes('one\ntwo\nthr');
    expect(raw.lineCount()).toBe(3);
    expect(raw.line(3)).toBe('thr');
    expect(raw.size()).toBe(11);
  });

  it('holds a live trace’s lines as they are appended', () => {
    const raw = linesText('live.jsonl');
    expect(raw.lineCount()).toBe(0);
    raw.append('{"v":1}');
    raw.append('{"seq":1,"raw":"abcdef"}');
    expect(raw.lineCount()).toBe(2);
    expect(raw.line(2)).toBe('{"seq":1,"raw":"abcdef"}');
    expect(raw.line(2, 5)).toBe('{"seq');
    expect(raw.line(3)).toBe('');
    expect(raw.size()).toBe(7 + 1 + 24 + 1);
  });
});
