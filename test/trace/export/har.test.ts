/**
 * `convert --to har`: an HTTP recording (made here by the recording proxy in front of a hand-written upstream with
 * a JSON answer and an event-stream answer) as HAR 1.2, with heads as recorded (credentials redacted) and bodies
 * rebuilt from the messages of each exchange; and HAR read back (a browser's developer tools save it) as a trace.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TapedeckError } from '../../../src/base/errors.js';
import { toHar } from '../../../src/redact/har.js';
import { encodeLine } from '../../../src/trace/encode.js';
import { loadTrace } from '../../../src/trace/io.js';
import type { MetaLine, TraceLine } from '../../../src/trace/types.js';
import { useCliHarness } from '../../helpers/cli.js';
import { recordSession, traceOf } from './har-session.js';

const SECRET = 'sk-har0123456789abcdefghijklmnop';
const io = useCliHarness('tapedeck-har-');

describe('HAR export', () => {
  let lines: TraceLine[];
  let upstreamUrl: string;

  beforeAll(async () => {
    ({ lines, upstreamUrl } = await recordSession({ headers: { authorization: `Bearer ${SECRET}` } }));
  });

  it('writes one HAR 1.2 entry per HTTP exchange, heads as recorded and bodies rebuilt', async () => {
    const har = JSON.parse(await toHar(traceOf(lines)));
    expect(har.log).toMatchObject({ version: '1.2', creator: { name: 'tapedeck' }, pages: [] });
    const [ping, call] = har.log.entries;
    expect(har.log.entries).toHaveLength(2);
    expect(ping.request).toMatchObject({ method: 'POST', url: upstreamUrl, httpVersion: 'HTTP/1.1' });
    expect(JSON.parse(ping.request.postData.text)).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(ping.request.postData.mimeType).toBe('application/json');
    expect(ping.response).toMatchObject({ status: 200, content: { mimeType: 'application/json' } });
    expect(JSON.parse(ping.response.content.text)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(ping.response.content.size).toBe(ping.response.content.text.length);
    // Credentials stay as the trace has them: redacted.
    const auth = ping.request.headers.find((h: { name: string }) => h.name === 'authorization');
    expect(auth.value).toMatch(/^\[REDACTED/);
    expect(JSON.stringify(har)).not.toContain(SECRET);

    expect(call.response.content.mimeType).toBe('text/event-stream');
    expect(call.response.content.text).toBe(
      'id: e1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n' +
        'id: e2\ndata: {"jsonrpc":"2.0","id":2,"result":{"content":[]}}\n\n',
    );
    for (const entry of har.log.entries) {
      expect(entry.timings.wait).toBeGreaterThanOrEqual(0);
      expect(entry.time).toBe(entry.timings.send + entry.timings.wait + entry.timings.receive);
      expect(Date.parse(entry.startedDateTime)).not.toBeNaN();
    }
  });

  it('refuses a trace with no HTTP exchanges, naming it', async () => {
    const meta: MetaLine = { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'stdio' };
    const stdio: TraceLine[] = [
      meta,
      { t: '2026-01-01T00:00:00.001Z', seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } },
    ];
    await expect(toHar(traceOf(stdio), 'stdio.jsonl')).rejects.toThrow(TapedeckError);
    await expect(toHar(traceOf(stdio), 'stdio.jsonl')).rejects.toThrow(
      /^stdio\.jsonl holds no HTTP exchanges/,
    );
  });

  it('is what convert --to har writes, to a private file', async () => {
    const trace = join(io.dir, 'remote.jsonl');
    writeFileSync(trace, lines.map((line) => encodeLine(line)).join(''));
    const out = join(io.dir, 'remote.har');
    expect(await io.run(['convert', trace, '--to', 'har', '-o', out])).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out, 'utf8')).log.entries).toHaveLength(2);
  });

  it('reads its own HAR back: the same messages, in the same order', async () => {
    const file = join(io.dir, 'round.har');
    writeFileSync(file, await toHar(traceOf(lines)));
    const back = await loadTrace(file);
    expect(back.format).toBe('har');
    expect(back.meta).toMatchObject({ transport: 'http', importedFrom: 'har' });
    const messages = (all: TraceLine[]) =>
      all.filter((l) => l.type === undefined && 'raw' in l).map((l) => [l.dir, (l as { raw: unknown }).raw]);
    expect(messages(back.entries.map((e) => e.line))).toEqual(messages(lines));
  });

  it('reads a browser HAR: keeps the JSON-RPC entries, decodes base64 bodies, leaves the rest out with a warning', async () => {
    const at = '2026-03-01T10:00:00.000Z';
    const body = '{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}';
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'WebInspector', version: '537.36' },
        entries: [
          {
            startedDateTime: at,
            request: { method: 'GET', url: 'http://127.0.0.1:6274/logo.png', headers: [] },
            response: {
              status: 200,
              headers: [{ name: 'Content-Type', value: 'image/png' }],
              content: { mimeType: 'image/png', text: 'iVBOR', encoding: 'base64' },
            },
          },
          {
            startedDateTime: '2026-03-01T10:00:01.500Z',
            request: {
              method: 'POST',
              url: 'http://127.0.0.1:6277/mcp',
              headers: [{ name: 'Content-Type', value: 'application/json' }],
              postData: {
                mimeType: 'application/json',
                text: '{"jsonrpc":"2.0","id":7,"method":"tools/list"}',
              },
            },
            response: {
              status: 200,
              headers: [{ name: 'Content-Type', value: 'application/json' }],
              content: {
                mimeType: 'application/json',
                text: Buffer.from(body).toString('base64'),
                encoding: 'base64',
              },
            },
            timings: { send: 1, wait: 25, receive: 2 },
          },
          {
            // No JSON-RPC in it, but the MCP endpoint's: the session's end belongs to the trace.
            startedDateTime: '2026-03-01T10:00:02.000Z',
            request: { method: 'DELETE', url: 'http://127.0.0.1:6277/mcp', headers: [] },
            response: { status: 200, headers: [], content: { mimeType: '', text: '' } },
          },
        ],
      },
    };
    const file = join(io.dir, 'browser.har');
    writeFileSync(file, JSON.stringify(har));
    const back = await loadTrace(file);
    expect(back.diagnostics.map((d) => d.message)).toEqual([
      `${file}: 1 HAR entry carries no JSON-RPC; left out`,
    ]);
    const records = back.entries.map((e) => e.line).filter((l) => l.type !== 'end');
    expect(records.map((l) => l.type ?? `message ${l.dir}`)).toEqual([
      'http',
      'message in',
      'http',
      'message out',
      'http',
      'http',
    ]);
    expect(records[0]).toMatchObject({
      method: 'POST',
      url: 'http://127.0.0.1:6277/mcp',
      t: '2026-03-01T10:00:01.500Z',
    });
    // The request body went after the send, the answer's head after the wait, its body after the receive.
    expect(records[1]).toMatchObject({ t: '2026-03-01T10:00:01.501Z' });
    expect(records[2]).toMatchObject({ status: 200, t: '2026-03-01T10:00:01.526Z' });
    expect(records[3]).toMatchObject({ raw: JSON.parse(body), t: '2026-03-01T10:00:01.528Z' });
    expect(records[4]).toMatchObject({ method: 'DELETE' });
  });
});
