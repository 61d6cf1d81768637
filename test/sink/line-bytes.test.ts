import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PipeCapture } from '../../src/capture/pipe-capture.js';
import { createRedactor } from '../../src/redact/engine.js';
import { FileSink } from '../../src/sink/file.js';
import { encodeLine, encodeMessageLine } from '../../src/trace/encode.js';
import type { Json, MessageLine, MetaLine, RecordBody } from '../../src/trace/types.js';
import { makeTempDir, removeTempDir } from '../helpers/proxy.js';

const T = '2026-01-02T03:04:05.678Z';

function meta(): MetaLine {
  return {
    v: 1,
    type: 'meta',
    startedAt: T,
    label: 'unit',
    kind: 'mcp',
    producer: { name: 'tapedeck', version: '0.0.0-test' },
    traceId: 'line-bytes',
    segment: 0,
    transport: 'stdio',
  };
}

/** A small deterministic generator (tests must repeat). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

const STRINGS = [
  'plain',
  'é ü ß',
  '日本語',
  '😀 emoji',
  'line\u2028sep',
  'para\u2029sep',
  'tab\tquote"back\\',
  '\r\n',
];
const NUMBERS = ['0', '-1', '3.25', '12345678901234567890', '1e400', '-0.0', '9007199254740993'];
const BLANKS = ['', ' ', '\t', '\r', '\r\n ', '  '];

/** JSON text as a peer might write it: any spacing (CR included), unicode raw or escaped, numbers JSON.parse rounds. */
function jsonText(next: () => number, depth: number): string {
  const blank = () => BLANKS[Math.floor(next() * BLANKS.length)]!;
  const pick = <V>(list: readonly V[]) => list[Math.floor(next() * list.length)]!;
  const roll = next();
  if (depth <= 0 || roll < 0.3) {
    const leaf = next();
    if (leaf < 0.4) {
      const text = pick(STRINGS);
      return next() < 0.5
        ? JSON.stringify(text)
        : `"${text.replace(/[\\"\t\r\n]/g, (c) => `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}"`;
    }
    if (leaf < 0.8) return pick(NUMBERS);
    return pick(['true', 'false', 'null']);
  }
  const count = Math.floor(next() * 4);
  const items = Array.from({ length: count }, (_, i) =>
    roll < 0.65
      ? `${blank()}"k${i}${pick(['', 'é', '\u2028'])}"${blank()}:${blank()}${jsonText(next, depth - 1)}`
      : `${blank()}${jsonText(next, depth - 1)}`,
  );
  return roll < 0.65 ? `{${items.join(',')}${blank()}}` : `[${items.join(',')}${blank()}]`;
}

/** A message: an object with an id, and any JSON inside it. */
function messageText(next: () => number): string {
  return `{"jsonrpc":"2.0","id":${Math.floor(next() * 1000)},"result":${jsonText(next, 1 + Math.floor(next() * 6))}}`;
}

/** What the string encoder makes of one captured body: a message from its wire text, anything else as it is. */
function expectedLine(body: RecordBody, seq: number, rawText: string | undefined): string {
  const line = { t: body.t, seq, ...body } as MessageLine;
  return rawText === undefined ? encodeLine(line) : encodeMessageLine(line, rawText);
}

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('tapedeck-line-bytes-');
});
afterEach(async () => {
  await removeTempDir(dir);
});

async function record(wire: Buffer[], redact: boolean): Promise<{ file: string; expected: string }> {
  const path = join(dir, redact ? 'redacted.jsonl' : 'plain.jsonl');
  const redactor = redact ? createRedactor({ defaults: true, rules: [], mode: 'marker' }) : undefined;
  const sink = new FileSink({ path, flushBytes: 4096, ...(redactor ? { redact: redactor } : {}) });
  sink.start(meta());
  let expected = encodeLine(meta());
  let seq = 0;
  const emit = (body: RecordBody, raw?: string | Buffer) => {
    seq += 1;
    const stamped = { t: body.t, seq, ...body } as MessageLine;
    const kept = redactor ? redactor(stamped) : stamped;
    const text = typeof raw === 'string' ? raw : raw?.toString('utf8');
    // The string path: the wire text stands for `raw` only when redaction left the line as it was.
    expected += kept === stamped ? expectedLine(body, seq, text) : encodeLine(kept);
    // Every message goes to the sink as bytes (the capture hands over only big ones so).
    sink.append(body, text === undefined ? undefined : Buffer.from(text));
  };
  const capture = new PipeCapture({ dir: 'out', maxMessageBytes: 1 << 24, emit, now: () => Date.parse(T) });
  for (const chunk of wire) capture.push(chunk);
  capture.end();
  await sink.close({ reason: 'producer_shutdown' });
  const end = readFileSync(path, 'utf8').split('\n').at(-2)!;
  return { file: readFileSync(path, 'utf8'), expected: `${expected + end}\n` };
}

describe('trace lines built in bytes', () => {
  it('equal the string encoder for generated messages (unicode, CR, U+2028, big numbers, deep nesting)', async () => {
    const next = random(3);
    const lines: string[] = [];
    for (let i = 0; i < 400; i += 1) lines.push(messageText(next));
    // Invalid UTF-8, a banner and a blank line between messages: text lines, as before.
    const wire = [
      Buffer.from(`${lines.slice(0, 200).join('\n')}\n`),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
      Buffer.from('server ready\n\n'),
      Buffer.from(`${lines.slice(200).join('\r\n')}\n`),
    ];
    for (const redact of [false, true]) {
      const { file, expected } = await record(wire, redact);
      expect(file).toBe(expected);
      for (const line of file.split('\n').slice(0, -1)) {
        expect(line.includes('\r') || line.includes('\u2028') || line.includes('\u2029')).toBe(false);
        expect(JSON.parse(line) as Json).toBeTypeOf('object');
      }
    }
  });

  it('hold a message split across reads and one larger than the write buffer whole', async () => {
    const big = `{"id":1,"result":{"text":"${'x\u2028y'.repeat(200_000)}"}}\n`;
    const bytes = Buffer.from(big);
    const { file, expected } = await record([bytes.subarray(0, 1000), bytes.subarray(1000)], false);
    expect(file).toBe(expected);
    expect(file.split('\n')).toHaveLength(4);
  });

  it('record 1 MB messages whole, one line each, with a secret inside hidden', async () => {
    const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
    const prose = 'the server returned a list of files: index.ts, notes and more.\n'.repeat(16_500);
    const wire = [1, 2, 3].map((id) => {
      const text = `${prose.slice(0, 300_000)}token ${token} here${prose.slice(300_000)}`;
      return Buffer.from(
        `${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } })}\n`,
      );
    });
    expect(wire[0]!.length).toBeGreaterThan(1 << 20);
    // One message a read, and one cut across two reads.
    const { file, expected } = await record(
      [wire[0]!, wire[1]!, wire[2]!.subarray(0, 70_000), wire[2]!.subarray(70_000)],
      true,
    );
    expect(file).toBe(expected);
    const lines = file.split('\n').slice(0, -1);
    expect(lines).toHaveLength(5);
    expect(file).not.toContain(token);
    for (const [index, line] of lines.slice(1, 4).entries()) {
      const raw = JSON.parse(line).raw as { id: number; result: { content: { text: string }[] } };
      expect(raw.id).toBe(index + 1);
      expect(raw.result.content[0]!.text.length).toBeGreaterThan(prose.length);
    }
  });
});
