import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PipeCapture } from '../../src/capture/pipe-capture.js';
import type { Direction, RecordBody } from '../../src/trace/types.js';

function capture(input: Buffer | string, options: { dir?: Direction; maxMessageBytes?: number } = {}) {
  const lines: RecordBody[] = [];
  const cap = new PipeCapture({
    dir: options.dir ?? 'out',
    maxMessageBytes: options.maxMessageBytes ?? 1 << 20,
    emit: (body) => lines.push(body),
    now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  });
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  // Feed byte by byte: framing must not depend on chunking.
  for (let i = 0; i < bytes.length; i += 1) cap.push(bytes.subarray(i, i + 1));
  cap.end();
  return lines;
}

describe('PipeCapture', () => {
  it('turns a JSON object line into a message line with the parsed raw value and direction', () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'é😀' } };
    expect(capture(`${JSON.stringify(message)}\n`, { dir: 'in' })).toEqual([
      { t: '2026-01-02T03:04:05.678Z', dir: 'in', raw: message },
    ]);
  });

  it('turns a JSON array (a batch) into one message line', () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'a' },
      { jsonrpc: '2.0', method: 'b' },
    ];
    expect(capture(`${JSON.stringify(batch)}\n`)).toEqual([
      expect.objectContaining({ dir: 'out', raw: batch }),
    ]);
  });

  it('parses a CRLF-terminated JSON line and one with surrounding whitespace', () => {
    const lines = capture('{"a":1}\r\n  {"b":2}  \n');
    expect(lines.map((l) => ('raw' in l ? l.raw : null))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('turns a non-JSON line into a text line, without its \\r', () => {
    expect(capture('Server listening on stdio\r\n{not json\n')).toEqual([
      expect.objectContaining({ type: 'text', dir: 'out', text: 'Server listening on stdio' }),
      expect.objectContaining({ type: 'text', dir: 'out', text: '{not json' }),
    ]);
  });

  it('turns JSON primitives (number, string, null, boolean) into text lines', () => {
    const lines = capture('42\n"hello"\nnull\ntrue\n');
    expect(lines.map((l) => [l.type, 'text' in l ? l.text : undefined])).toEqual([
      ['text', '42'],
      ['text', '"hello"'],
      ['text', 'null'],
      ['text', 'true'],
    ]);
  });

  it('keeps the exact bytes of an invalid UTF-8 line as base64 beside a lossy text', () => {
    const bad = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d]); // {"a":"\xff\xc3"}
    const lines = capture(Buffer.concat([bad, Buffer.from('\r\n')]));
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ type: 'text', dir: 'out', b64: bad.toString('base64') });
    expect(Buffer.from(String((line as { b64: string }).b64), 'base64').equals(bad)).toBe(true);
    expect((line as { text: string }).text).toBe('{"a":"\ufffd\ufffd"}');
  });

  it('skips blank and whitespace-only lines', () => {
    const lines = capture('\n\r\n   \n\t\r\n{"a":1}\n\n');
    expect(lines).toEqual([expect.objectContaining({ raw: { a: 1 } })]);
  });

  it('records a last line that has no newline at end()', () => {
    expect(capture('{"a":1}\n{"b":2}')).toEqual([
      expect.objectContaining({ raw: { a: 1 } }),
      expect.objectContaining({ raw: { b: 2 } }),
    ]);
  });

  it('records a message over maxMessageBytes as a truncated event with its size and sha256', () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { data: 'x'.repeat(5000) } });
    const lines = capture(`${big}\n{"small":true}\n`, { dir: 'in', maxMessageBytes: 1000 });
    expect(lines).toEqual([
      {
        t: '2026-01-02T03:04:05.678Z',
        type: 'event',
        name: 'truncated',
        dir: 'in',
        size: Buffer.byteLength(big),
        sha256: createHash('sha256').update(big).digest('hex'),
      },
      expect.objectContaining({ raw: { small: true } }),
    ]);
  });

  it('parses big lines, ASCII or not, into the value their text holds and hands on their exact bytes', () => {
    // Over a megabyte: the size at which a decoded line stops being an ordinary heap string.
    const prose = 'the server returned a list of files:\n index.ts, notes and more. '.repeat(20_000);
    for (const text of [prose, `${prose}é😀`]) {
      const line = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text }] } });
      const bytes = Buffer.from(`${line}\n`);
      const seen: Array<{ body: RecordBody; rawText: string | Buffer | undefined }> = [];
      const cap = new PipeCapture({
        dir: 'out',
        maxMessageBytes: 1 << 24,
        emit: (body, rawText) =>
          seen.push({ body, rawText: Buffer.isBuffer(rawText) ? Buffer.from(rawText) : rawText }),
      });
      cap.push(bytes);
      cap.end();
      expect(seen).toHaveLength(1);
      const body = seen[0]!.body as { dir: string; raw: unknown };
      expect(body.dir).toBe('out');
      // Compared as text: a deep compare of a megabyte string is slow in the test runner.
      expect(JSON.stringify(body.raw) === line).toBe(true);
      const rawText = seen[0]!.rawText;
      expect(Buffer.isBuffer(rawText) && rawText.equals(bytes.subarray(0, -1))).toBe(true);
    }
  });
});
