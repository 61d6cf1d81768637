/**
 * The TraceSink contract, as one suite every sink runs (test/sink/contract.test.ts): the same scripted session
 * goes in, and what the sink stored — read back the way its readers read it — must be numbered, redacted, counted
 * and ended the same way whatever the storage.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redact/engine.js';
import type { Redactor } from '../../src/redact/types.js';
import type { EndInfo, TraceSink } from '../../src/sink/sink.js';
import { newMeta } from '../../src/trace/meta.js';
import type { EndLine, MetaLine, RecordBody, TraceLine } from '../../src/trace/types.js';

/** A sink made for one test, and how to read back what it stored once it is closed. */
export interface SinkUnderTest {
  sink: TraceSink;
  /** The stored trace, line by line as its reader sees it (the file, the collector's JSONL), after close. */
  stored(): Promise<TraceLine[]>;
  /** Every byte the sink stored, wherever it stored them, to look for what redaction must have hidden. */
  storedText(): Promise<string>;
  /** Releases what the factory made (folders, an in-process collector). */
  cleanup?(): Promise<void> | void;
}

/** Makes a sink whose lines go through `redact`. */
export type SinkFactory = (options: { redact: Redactor }) => Promise<SinkUnderTest> | SinkUnderTest;

/** Secrets the built-in rules know by their shape. */
const GITHUB_TOKEN = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const BEARER = 'Bearer sk-proj-Zq4Rt8Wm2Np6Ks0Lx3Vb7Yc1Hd5Fg9Jk';
const AWS_KEY = 'AKIAQ2EXAMPLE7KEY5ZZ';

const T = '2026-03-01T10:00:00.000Z';

/**
 * The session every sink is fed: a handshake, a call carrying a secret in its arguments, a JSON-RPC error, a tool
 * error, a server banner on stdout, a secret on stderr, and an event the recorder noticed.
 */
export const SCRIPT: readonly RecordBody[] = [
  {
    t: T,
    dir: 'in',
    raw: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
  },
  {
    t: T,
    dir: 'out',
    raw: { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: {} } },
  },
  { t: T, dir: 'in', raw: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  {
    t: T,
    dir: 'in',
    raw: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'fetch', arguments: { url: 'https://api.github.com', token: GITHUB_TOKEN } },
    },
  },
  { t: T, dir: 'out', raw: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad arguments' } } },
  {
    t: T,
    dir: 'in',
    raw: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'env', arguments: {} } },
  },
  {
    t: T,
    dir: 'out',
    raw: {
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: `Authorization: ${BEARER}` }], isError: true },
    },
  },
  { t: T, type: 'text', dir: 'out', text: 'server v1 starting' },
  { t: T, type: 'stderr', text: `aws configure set aws_access_key_id ${AWS_KEY}` },
  { t: T, type: 'event', name: 'spawn', ok: true, pid: 4242 },
];

/** What the end line of the script must count. */
export const SCRIPT_COUNTS = { in: 4, out: 3, text: 1, stderr: 1, events: 1, errors: 1, toolErrors: 1 };

const isEnd = (line: TraceLine): line is EndLine => (line as { type?: string }).type === 'end';

/**
 * Runs the TraceSink contract against the sinks `make` makes.
 *
 * @example sinkContract('MemorySink', ({ redact }) => { const sink = new MemorySink({ redact }); … });
 */
export function sinkContract(name: string, make: SinkFactory): void {
  describe(`${name} keeps the TraceSink contract`, () => {
    const made: SinkUnderTest[] = [];
    afterEach(async () => {
      for (const each of made.splice(0)) await each.cleanup?.();
    });

    /** A sink with the built-in redaction, started with a meta line that carries a secret in its command. */
    async function open(meta: Partial<MetaLine> = {}): Promise<SinkUnderTest> {
      const under = await make({ redact: createRedactor({ defaults: true, rules: [], mode: 'marker' }) });
      made.push(under);
      under.sink.start({
        ...newMeta({
          label: 'contract',
          transport: 'stdio',
          command: ['node', 'server.js', '--token', GITHUB_TOKEN],
        }),
        ...meta,
      });
      return under;
    }

    async function played(info: EndInfo = { reason: 'process_exit', exitCode: 0 }): Promise<SinkUnderTest> {
      const under = await open();
      for (const body of SCRIPT) under.sink.append(body);
      await under.sink.close(info);
      return under;
    }

    it('stores the meta line first, the captured lines numbered 1, 2, 3… in order, and the end line last', async () => {
      const under = await played();
      const lines = await under.stored();
      expect(lines[0]).toMatchObject({ v: 1, type: 'meta', label: 'contract', transport: 'stdio' });
      const records = lines.slice(1, -1);
      expect(records.map((line) => (line as { seq?: number }).seq)).toEqual(SCRIPT.map((_, i) => i + 1));
      expect(
        records.map((line) => (line as { type?: string }).type ?? (line as { dir?: string }).dir),
      ).toEqual(SCRIPT.map((body) => body.type ?? (body as { dir: string }).dir));
      expect(lines.at(-1)).toMatchObject({ type: 'end', reason: 'process_exit', exitCode: 0 });
      expect(lines.filter(isEnd)).toHaveLength(1);
    });

    it('stores every message as it was sent, apart from what redaction hides', async () => {
      const under = await played();
      const messages = (await under.stored()).filter(
        (line) => (line as { type?: string }).type === undefined && 'raw' in line,
      ) as { raw: unknown }[];
      expect(messages.map((m) => m.raw)).toEqual([
        SCRIPT[0]!.raw,
        SCRIPT[1]!.raw,
        SCRIPT[2]!.raw,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'fetch',
            arguments: { url: 'https://api.github.com', token: expect.stringMatching(/^\[REDACTED:/) },
          },
        },
        SCRIPT[4]!.raw,
        SCRIPT[5]!.raw,
        {
          jsonrpc: '2.0',
          id: 2,
          result: {
            content: [{ type: 'text', text: expect.stringMatching(/^Authorization: .*\[REDACTED:/) }],
            isError: true,
          },
        },
      ]);
    });

    it('redacts before anything is stored: no secret of the meta, messages or stderr reaches storage', async () => {
      const under = await played();
      const text = await under.storedText();
      expect(text).toContain('[REDACTED:');
      for (const secret of [GITHUB_TOKEN, 'sk-proj-Zq4Rt8Wm2Np6Ks0Lx3Vb7Yc1Hd5Fg9Jk', AWS_KEY])
        expect(text).not.toContain(secret);
    });

    it('counts what it stored in the end line: messages each way, text, stderr, events, errors, tool errors', async () => {
      const under = await played({ reason: 'producer_shutdown' });
      const end = (await under.stored()).find(isEnd);
      expect(end).toMatchObject({ type: 'end', reason: 'producer_shutdown', counts: SCRIPT_COUNTS });
      expect(end?.durationMs).toEqual(expect.any(Number));
    });

    it('closes once: a second close, at once or later, writes no second end line and resolves', async () => {
      const under = await open();
      for (const body of SCRIPT.slice(0, 3)) under.sink.append(body);
      await Promise.all([
        under.sink.close({ reason: 'process_exit', exitCode: 3 }),
        under.sink.close({ reason: 'transport_error' }),
      ]);
      await under.sink.close({ reason: 'producer_shutdown' });
      const lines = await under.stored();
      expect(lines.filter(isEnd)).toEqual([
        expect.objectContaining({
          reason: 'process_exit',
          exitCode: 3,
          counts: expect.objectContaining({ in: 2 }),
        }),
      ]);
    });

    it('ignores what is appended after close, without throwing', async () => {
      const under = await open();
      for (const body of SCRIPT.slice(0, 2)) under.sink.append(body);
      await under.sink.close({ reason: 'process_exit' });
      expect(() => under.sink.append(SCRIPT[2]!)).not.toThrow();
      expect(() => under.sink.append({ t: T, type: 'stderr', text: 'late' })).not.toThrow();
      const lines = await under.stored();
      expect(lines).toHaveLength(4);
      expect(lines.at(-1)).toMatchObject({ type: 'end', counts: expect.objectContaining({ in: 1, out: 1 }) });
      expect(JSON.stringify(lines)).not.toContain('late');
    });

    it('stores the wire text it is handed for a message the redaction left alone, and re-encodes one it changed', async () => {
      const under = await open();
      under.sink.append({ t: T, dir: 'in', raw: { jsonrpc: '2.0', id: 7, method: 'tools/list' } });
      // Key order and spacing as the peer wrote them: kept when nothing in the message was hidden.
      const wire = '{"id":7,"jsonrpc":"2.0","result":{"b":1,"a":2}}';
      under.sink.append({ t: T, dir: 'out', raw: JSON.parse(wire) }, wire);
      const secretWire = `{"id":8,"jsonrpc":"2.0","result":{"token":"${GITHUB_TOKEN}"}}`;
      under.sink.append({ t: T, dir: 'out', raw: JSON.parse(secretWire) }, secretWire);
      await under.sink.close({ reason: 'process_exit' });
      const [first, second] = (await under.stored()).slice(2, 4) as { raw: unknown }[];
      expect(first?.raw).toEqual({ id: 7, jsonrpc: '2.0', result: { b: 1, a: 2 } });
      expect(second?.raw).toEqual({
        id: 8,
        jsonrpc: '2.0',
        result: { token: expect.stringMatching(/^\[REDACTED:/) },
      });
      const text = await under.storedText();
      expect(text).toContain(wire);
      expect(text).not.toContain(GITHUB_TOKEN);
    });
  });
}

/** Parses JSONL text into lines (a trailing newline is fine). */
export function parseJsonl(text: string): TraceLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TraceLine);
}
