import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type FramedLine, LineFramer } from '../../src/capture/line-framer.js';

function frame(chunks: Buffer[], maxLineBytes = 1 << 20, withEnd = true): FramedLine[] {
  const lines: FramedLine[] = [];
  const framer = new LineFramer({ maxLineBytes, onLine: (line) => lines.push(line) });
  for (const chunk of chunks) framer.push(chunk);
  if (withEnd) framer.end();
  return lines;
}

function texts(lines: FramedLine[]): string[] {
  return lines.map((line) =>
    line.kind === 'line' ? line.bytes.toString('utf8') : `<oversize ${line.size}>`,
  );
}

describe('LineFramer', () => {
  it('keeps a UTF-8 character split across two chunks intact', () => {
    const bytes = Buffer.from('{"m":"h€llo 😀"}\n');
    // Cut inside the 3-byte euro sign and inside the 4-byte emoji.
    const euro = bytes.indexOf(0xe2);
    const emoji = bytes.indexOf(0xf0);
    const lines = frame([
      bytes.subarray(0, euro + 1),
      bytes.subarray(euro + 1, emoji + 2),
      bytes.subarray(emoji + 2),
    ]);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line?.kind).toBe('line');
    if (line?.kind !== 'line') return;
    expect(line.bytes.equals(bytes.subarray(0, -1))).toBe(true);
    expect(line.bytes.toString('utf8')).toBe('{"m":"h€llo 😀"}');
  });

  it('reports CRLF lines with their \\r kept in the bytes and crlf set', () => {
    const lines = frame([Buffer.from('a\r\nb\n\r\n')]);
    expect(lines.map((l) => (l.kind === 'line' ? [l.bytes.toString('latin1'), l.crlf] : null))).toEqual([
      ['a\r', true],
      ['b', false],
      ['\r', true],
    ]);
  });

  it('reports blank lines as empty lines (the consumer decides to skip them)', () => {
    expect(texts(frame([Buffer.from('\n\nx\n\n')]))).toEqual(['', '', 'x', '']);
  });

  it('emits a last line without newline only at end()', () => {
    const lines: FramedLine[] = [];
    const framer = new LineFramer({ maxLineBytes: 100, onLine: (line) => lines.push(line) });
    framer.push(Buffer.from('one\ntw'));
    framer.push(Buffer.from('o'));
    expect(texts(lines)).toEqual(['one']);
    framer.end();
    expect(texts(lines)).toEqual(['one', 'two']);
    // A second end() has nothing left to flush.
    framer.end();
    expect(lines).toHaveLength(2);
  });

  it('emits nothing at end() after a stream that ended with a newline', () => {
    expect(texts(frame([Buffer.from('a\n')]))).toEqual(['a']);
  });

  it('does not depend on the caller keeping its chunk buffer unchanged', () => {
    const lines: FramedLine[] = [];
    const framer = new LineFramer({ maxLineBytes: 100, onLine: (line) => lines.push(line) });
    const chunk = Buffer.from('abc');
    framer.push(chunk);
    chunk.fill(0x7a); // the caller reuses its buffer
    framer.push(Buffer.from('\n'));
    expect(texts(lines)).toEqual(['abc']);
  });

  it('stamps each line with the time its first byte was read', () => {
    let clock = 1000;
    const lines: FramedLine[] = [];
    const framer = new LineFramer({
      maxLineBytes: 100,
      onLine: (line) => lines.push(line),
      now: () => clock,
    });
    framer.push(Buffer.from('{"a"'));
    clock = 2000;
    framer.push(Buffer.from(':1}\n{"b":2}\n'));
    expect(lines.map((l) => l.atMs)).toEqual([1000, 2000]);
  });

  it('reports a line over maxLineBytes as oversize with the real size and sha256, then frames on normally', () => {
    const big = Buffer.alloc(10_000, 0x61);
    big[5000] = 0xff; // bytes, not characters, are hashed
    const input = Buffer.concat([Buffer.from('small\n'), big, Buffer.from('\nafter\n')]);
    const chunks: Buffer[] = [];
    for (let i = 0; i < input.length; i += 333) chunks.push(input.subarray(i, i + 333));
    const lines = frame(chunks, 1000);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ kind: 'line' });
    expect(lines[1]).toMatchObject({
      kind: 'oversize',
      size: big.length,
      sha256: createHash('sha256').update(big).digest('hex'),
    });
    expect(texts(lines)[2]).toBe('after');
  });

  it('treats a line of exactly maxLineBytes as a normal line and one byte more as oversize', () => {
    expect(frame([Buffer.from('abcd\nabcde\n')], 4).map((l) => l.kind)).toEqual(['line', 'oversize']);
  });

  it('reports an oversize last line without newline at end()', () => {
    const big = Buffer.alloc(5000, 0x62);
    const lines = frame([big.subarray(0, 2500), big.subarray(2500)], 1000);
    expect(lines).toEqual([
      expect.objectContaining({
        kind: 'oversize',
        size: 5000,
        sha256: createHash('sha256').update(big).digest('hex'),
      }),
    ]);
  });

  it('does not hold an oversize line in memory: 64 MB pass through with bounded retained memory', () => {
    const lines: FramedLine[] = [];
    const framer = new LineFramer({ maxLineBytes: 64 * 1024, onLine: (line) => lines.push(line) });
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const hash = createHash('sha256');
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    for (let i = 0; i < 1024; i += 1) {
      framer.push(chunk);
      hash.update(chunk);
      if (i % 64 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
    }
    peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
    framer.push(Buffer.from('\n'));
    // Holding the line would cost 64 MB; the framer keeps at most maxLineBytes (plus the usual noise).
    expect(peak).toBeLessThan(8 * 1024 * 1024);
    expect(lines).toEqual([
      expect.objectContaining({ kind: 'oversize', size: 64 * 1024 * 1024, sha256: hash.digest('hex') }),
    ]);
  });
});
