import { describe, expect, it } from 'vitest';
import { TapedeckError } from '../../src/base/errors.js';
import {
  DiagnosticLog,
  LineSplitter,
  type ReadLine,
  readJsonLines,
  readTraceLines,
  splitLines,
  type TraceDiagnostic,
} from '../../src/trace/reader.js';

const T = '2026-01-01T00:00:00.000Z';
const enc = new TextEncoder();

/** Feeds bytes in chunks of the given size, to put chunk boundaries everywhere. */
async function* chunked(text: string | Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  const bytes = typeof text === 'string' ? enc.encode(text) : text;
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function read(text: string, mode: 'lenient' | 'strict' = 'lenient', size = 7) {
  const diagnostics: TraceDiagnostic[] = [];
  const log = new DiagnosticLog(mode, (d) => diagnostics.push(d));
  const lines: ReadLine[] = await collect(readTraceLines(chunked(text, size), { file: 'trace.jsonl', log }));
  return { lines, diagnostics, log };
}

const msg = (seq: number, extra = '') => `{"t":"${T}","seq":${seq},"dir":"in","raw":{"id":${seq}}${extra}}`;

describe('LineSplitter', () => {
  /** Every call the splitter makes, for input fed in chunks of `size` bytes. */
  function split(input: string | Uint8Array, size: number, max?: number): string[] {
    const calls: string[] = [];
    const splitter = new LineSplitter(
      {
        text: (text, n, terminated) => calls.push(`${n}${terminated ? '' : '!'} ${JSON.stringify(text)}`),
        notUtf8: (n, terminated) => calls.push(`${n}${terminated ? '' : '!'} not utf-8`),
        tooLong: (n, bytes, terminated) => calls.push(`${n}${terminated ? '' : '!'} too long: ${bytes}`),
      },
      max,
    );
    const bytes = typeof input === 'string' ? enc.encode(input) : input;
    for (let at = 0; at < bytes.length; at += size) splitter.push(bytes.subarray(at, at + size));
    splitter.end();
    return calls;
  }

  it('hands over every line in order, CR stripped, blank ones included, whatever the chunk size', () => {
    const input = 'a€b\r\n\n  \nlast😀';
    const expected = ['1 "a€b"', '2 ""', '3 "  "', '4! "last😀"'];
    for (const size of [1, 2, 3, 4, 7, 1024]) expect(split(input, size)).toEqual(expected);
  });

  it('names a line that is not UTF-8 and one over the limit, and goes on after them', () => {
    const bad = new Uint8Array([...enc.encode('ok\n'), 0xff, 0xfe, 10, ...enc.encode('0123456789\nend\n')]);
    for (const size of [2, 5, 64]) {
      expect(split(bad, size, 8)).toEqual(['1 "ok"', '2 not utf-8', '3 too long: 10', '4 "end"']);
    }
    expect(split('0123456789', 64, 8)).toEqual(['1! too long: 10']);
  });

  it('stops where a handler throws, after the lines before it', () => {
    const seen: number[] = [];
    const splitter = new LineSplitter({
      text: (_text, n) => {
        if (n === 3) throw new Error('line 3 refused');
        seen.push(n);
      },
      notUtf8: () => {},
      tooLong: () => {},
    });
    expect(() => splitter.push(enc.encode('a\nb\nc\nd\n'))).toThrow('line 3 refused');
    expect(seen).toEqual([1, 2]);
  });
});

describe('splitLines', () => {
  it('keeps UTF-8 characters split across chunks intact, at every chunk size', async () => {
    const text = '{"m":"h€llo 😀 ünï"}\n{"m":"second"}\n';
    for (const size of [1, 2, 3, 5, 64]) {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const lines = await collect(splitLines(chunked(text, size)));
      expect(lines.map((l) => decoder.decode(l.bytes))).toEqual(['{"m":"h€llo 😀 ünï"}', '{"m":"second"}']);
    }
  });

  it('drops the \\r of CRLF even when \\r and \\n arrive in different chunks', async () => {
    const lines = await collect(splitLines(chunked('ab\r\ncd\r\n', 3)));
    expect(lines.map((l) => new TextDecoder().decode(l.bytes))).toEqual(['ab', 'cd']);
  });

  it('numbers lines from 1, blank ones included, and flags a last line without newline', async () => {
    const lines = await collect(splitLines(chunked('a\n\nb\nc', 2)));
    expect(lines.map((l) => [l.lineNo, new TextDecoder().decode(l.bytes), l.terminated])).toEqual([
      [1, 'a', true],
      [2, '', true],
      [3, 'b', true],
      [4, 'c', false],
    ]);
  });

  it('drops the bytes of an over-long line but still counts it', async () => {
    const lines = await collect(splitLines(chunked(`${'x'.repeat(100)}\nok\n`, 16), { maxLineBytes: 50 }));
    expect(lines[0]).toMatchObject({ lineNo: 1, overflowBytes: 100 });
    expect(lines[0]?.bytes.length).toBe(0);
    expect(new TextDecoder().decode(lines[1]?.bytes)).toBe('ok');
  });
});

describe('readTraceLines', () => {
  it('skips blank lines and reads CRLF files', async () => {
    const { lines, diagnostics } = await read(`${msg(1)}\r\n\r\n   \n${msg(2)}\r\n`);
    expect(lines.map((l) => [l.lineNo, l.line.seq])).toEqual([
      [1, 1],
      [4, 2],
    ]);
    expect(diagnostics).toEqual([]);
  });

  it('reports a corrupt middle line with its line number and goes on', async () => {
    const { lines, diagnostics } = await read(`${msg(1)}\n${msg(2)}\n{"t":"${T}","dir":\n${msg(3)}\n`);
    expect(lines.map((l) => l.line.seq)).toEqual([1, 2, 3]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'corrupt_line',
      severity: 'error',
      file: 'trace.jsonl',
      line: 3,
    });
    expect(diagnostics[0]?.message).toMatch(/^trace\.jsonl:3: not valid JSON \(/);
  });

  it('throws corrupt_trace naming file and line in strict mode', async () => {
    const error = await read(`${msg(1)}\nnot json at all\n${msg(2)}\n`, 'strict').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TapedeckError);
    expect(error).toMatchObject({ code: 'corrupt_trace' });
    expect((error as Error).message).toMatch(/^trace\.jsonl:2: not valid JSON \(.+\)$/);
  });

  it('reports a line that is JSON but not a trace line', async () => {
    const { diagnostics } = await read(`${msg(1)}\n{"t":"${T}","dir":"up","raw":1}\n`);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'trace.jsonl:2: message line: "dir" must be "in" or "out", got "up"',
    ]);
  });

  it('tolerates a cut-off last line, even in strict mode, and says so', async () => {
    const { lines, diagnostics } = await read(`${msg(1)}\n${msg(2)}\n{"t":"${T}","seq":3,"di`, 'strict');
    expect(lines).toHaveLength(2);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'truncated_line', severity: 'warning', line: 3 }),
    ]);
    expect(diagnostics[0]?.message).toMatch(/^trace\.jsonl:3: last line is cut off/);
  });

  it('accepts a complete last line that merely lacks its newline', async () => {
    const { lines, diagnostics } = await read(`${msg(1)}\n${msg(2)}`);
    expect(lines).toHaveLength(2);
    expect(diagnostics).toEqual([]);
  });

  it('skips unknown line types and keeps unknown fields, silently', async () => {
    const { lines, diagnostics } = await read(
      `${msg(1, ',"shiny":true')}\n{"t":"${T}","type":"hologram"}\n${msg(2)}\n`,
    );
    expect(lines.map((l) => l.line.seq)).toEqual([1, 2]);
    expect(lines[0]?.line.shiny).toBe(true);
    expect(diagnostics).toEqual([]);
  });

  it('reports invalid UTF-8 as a corrupt line', async () => {
    const bytes = new Uint8Array([
      ...enc.encode(`${msg(1)}\n{"t":"`),
      0xff,
      0xfe,
      ...enc.encode(`"}\n${msg(2)}\n`),
    ]);
    const log = new DiagnosticLog();
    const lines = await collect(readTraceLines(chunked(bytes, 5), { file: 'f.jsonl', log }));
    expect(lines).toHaveLength(2);
    expect(log.list.map((d) => d.message)).toEqual(['f.jsonl:2: not valid UTF-8']);
  });

  it('keeps at most 1000 diagnostics in memory but counts the rest', async () => {
    const log = new DiagnosticLog();
    const garbage = 'nope\n'.repeat(1500);
    await collect(readJsonLines(chunked(garbage, 4096), { file: 'g', log }));
    expect(log.list).toHaveLength(1000);
    expect(log.dropped).toBe(500);
  });
});

describe('readJsonLines across chunk boundaries', () => {
  const text = `{"a":1}\r\n\n   \n{"b":"é€😀"}\n{bad\n{"c":"${'x'.repeat(40)}"}\n{"d":[1,2,3]}\n{"e":`;

  it.each([1, 2, 3, 5, 7, 16, 64, 1024])(
    'gives the same lines and diagnostics at chunk size %i',
    async (size) => {
      const log = new DiagnosticLog('lenient');
      const lines = await collect(readJsonLines(chunked(text, size), { file: 't.jsonl', log }));
      expect(lines).toEqual([
        { value: { a: 1 }, lineNo: 1 },
        { value: { b: 'é€😀' }, lineNo: 4 },
        { value: { c: 'x'.repeat(40) }, lineNo: 6 },
        { value: { d: [1, 2, 3] }, lineNo: 7 },
      ]);
      expect(log.list.map((d) => [d.code, d.line])).toEqual([
        ['corrupt_line', 5],
        ['truncated_line', 8],
      ]);
    },
  );

  it('names the one line that is not UTF-8 and keeps the others of its chunk', async () => {
    const bytes = new TextEncoder().encode('{"a":1}\n{"b":"??"}\n{"c":3}\n');
    bytes[14] = 0xff;
    const log = new DiagnosticLog('lenient');
    const lines = await collect(readJsonLines(once(bytes), { file: 't.jsonl', log }));
    expect(lines.map((l) => l.lineNo)).toEqual([1, 3]);
    expect(log.list.map((d) => [d.code, d.line, d.message])).toEqual([
      ['corrupt_line', 2, 't.jsonl:2: not valid UTF-8'],
    ]);
  });

  it('skips an over-long line in the middle of a chunk and reads its neighbours', async () => {
    const log = new DiagnosticLog('lenient');
    const source = `{"a":1}\n{"long":"${'y'.repeat(100)}"}\n{"b":2}\n`;
    const lines = await collect(
      readJsonLines(chunked(source, 4096), { file: 't.jsonl', log, maxLineBytes: 50 }),
    );
    expect(lines).toEqual([
      { value: { a: 1 }, lineNo: 1 },
      { value: { b: 2 }, lineNo: 3 },
    ]);
    expect(log.list.map((d) => [d.code, d.line])).toEqual([['line_too_long', 2]]);
  });

  it('in strict mode hands over the lines before the bad one, then throws', async () => {
    const log = new DiagnosticLog('strict');
    const seen: unknown[] = [];
    await expect(async () => {
      for await (const line of readJsonLines(chunked('{"a":1}\n{"b":2}\n{nope\n{"c":3}\n', 4096), {
        file: 't.jsonl',
        log,
      }))
        seen.push(line.value);
    }).rejects.toThrow(/t\.jsonl:3: not valid JSON/);
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
  });
});

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
