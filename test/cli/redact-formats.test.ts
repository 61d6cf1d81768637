/**
 * `tapedeck redact` keeps a file's format: an mcp-tape trace stays mcp-tape JSONL, a HAR stays a HAR, a shack
 * trajectory stays a trajectory. What held no secret comes back byte for byte.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/trace/io.js';
import { useCliHarness } from '../helpers/cli.js';

const io = useCliHarness('tapedeck-redact-formats-');
const GITHUB = `ghp_${'Q7w8E9r0T1y2U3i4O5p6'}${'A7s8D9f0G1h2J3k4'}`;
const SESSION = '0b7d8a6e-2f3c-4d1e-8b9a-7c6d5e4f3a2b';
const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/interop/${path}`, import.meta.url));

describe('tapedeck redact keeps the format', () => {
  it('an mcp-tape trace: meta says what was applied, every other clean line byte for byte', async () => {
    const input = fixture('mcp-tape/everything-stdio.jsonl');
    const original = readFileSync(input, 'utf8').trimEnd().split('\n');
    expect(await io.run(['redact', input])).toBe(0);
    const out = io.stdout.trimEnd().split('\n');
    expect(out).toHaveLength(original.length);
    const meta = JSON.parse(out[0]!);
    expect(meta).toMatchObject({ type: 'meta', redaction: { defaults: true, mode: 'marker' } });
    expect(meta.producer).toEqual(JSON.parse(original[0]!).producer);
    const changed = out.slice(1).filter((line, i) => line !== original[i + 1]);
    // server-everything's get-env style answers may hold secret-named variables; nothing else changes.
    for (const line of changed) expect(line).toContain('[REDACTED:');
    const path = join(io.dir, 'out.jsonl');
    writeFileSync(path, io.stdout);
    expect((await openTrace(path)).format).toBe('mcp-tape');
  });

  it('a HAR: credential headers hidden, the session id hashed, cookies and bodies redacted, still a HAR', async () => {
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'browser', version: '1' },
        entries: [
          {
            startedDateTime: '2026-12-01T00:00:00.000Z',
            time: 12,
            request: {
              method: 'POST',
              url: `http://127.0.0.1:3001/mcp?api_key=${GITHUB}&page=2`,
              httpVersion: 'HTTP/1.1',
              headers: [
                { name: 'Authorization', value: `Bearer ${GITHUB}` },
                { name: 'x-goog-api-key', value: 'AIzaFakeKeyForTestsOnly-0123456789abcd' },
                { name: 'Mcp-Session-Id', value: SESSION },
                { name: 'Content-Type', value: 'application/json' },
              ],
              cookies: [{ name: 'sid', value: 'cookie-value-1234' }],
              queryString: [
                { name: 'api_key', value: GITHUB },
                { name: 'page', value: '2' },
              ],
              postData: {
                mimeType: 'application/json',
                text: JSON.stringify({
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'tools/call',
                  params: { name: 'login', arguments: { password: 'hunter2-hunter2' } },
                }),
              },
              headersSize: -1,
              bodySize: -1,
            },
            response: {
              status: 200,
              statusText: 'OK',
              httpVersion: 'HTTP/1.1',
              headers: [{ name: 'mcp-session-id', value: SESSION }],
              cookies: [],
              content: {
                size: 10,
                mimeType: 'application/json',
                text: '{"jsonrpc":"2.0","id":1,"result":{}}',
              },
              redirectURL: '',
              headersSize: -1,
              bodySize: -1,
            },
            cache: {},
            timings: { send: 0, wait: 12, receive: 0 },
          },
        ],
      },
    };
    const input = join(io.dir, 'session.har');
    const text = `${JSON.stringify(har, null, 2)}\n`;
    writeFileSync(input, text);
    expect(await io.run(['redact', input])).toBe(0);
    for (const secret of [GITHUB, SESSION, 'hunter2-hunter2', 'cookie-value-1234', 'AIzaFake']) {
      expect(io.stdout).not.toContain(secret);
    }
    const out = JSON.parse(io.stdout);
    const [entry] = out.log.entries;
    const header = (list: { name: string; value: string }[], name: string) =>
      list.find((h) => h.name.toLowerCase() === name)?.value;
    expect(header(entry.request.headers, 'authorization')).toBe('[REDACTED:authorization-header]');
    expect(header(entry.request.headers, 'content-type')).toBe('application/json');
    const hashed = header(entry.request.headers, 'mcp-session-id');
    expect(hashed).toMatch(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/);
    expect(header(entry.response.headers, 'mcp-session-id')).toBe(hashed);
    expect(entry.request.url).toBe('http://127.0.0.1:3001/mcp?api_key=[REDACTED:github-token]&page=2');
    expect(JSON.parse(entry.request.postData.text).params.arguments).toEqual({
      password: '[REDACTED:password]',
    });
    expect(entry.response.content.text).toBe(har.log.entries[0]!.response.content.text);
    expect(entry.timings).toEqual(har.log.entries[0]!.timings);
    // Written the way it came: two-space indentation and a final line break.
    expect(io.stdout.startsWith('{\n  "log": {')).toBe(true);
    const path = join(io.dir, 'redacted.har');
    writeFileSync(path, io.stdout);
    expect((await openTrace(path)).format).toBe('har');
  });

  it('a shack trajectory: redacted where it stands; one with nothing to hide comes back byte for byte', async () => {
    const input = fixture('shack/my_session.json');
    expect(await io.run(['redact', input])).toBe(0);
    expect(io.stdout).toBe(readFileSync(input, 'utf8'));
    const doc = JSON.parse(readFileSync(input, 'utf8'));
    doc.events[0].request.params.arguments.token = GITHUB;
    const planted = join(io.dir, 'planted.json');
    writeFileSync(planted, JSON.stringify(doc, null, 2));
    io.stdout = '';
    expect(await io.run(['redact', planted])).toBe(0);
    expect(io.stdout).not.toContain(GITHUB);
    const out = JSON.parse(io.stdout);
    expect(out.events[0].request.params.arguments).toEqual({
      q: 'typescript mcp',
      // A GitHub token under a `token` key: its format names it.
      token: '[REDACTED:github-token]',
    });
    expect(out.name).toBe(doc.name);
    const path = join(io.dir, 'redacted.json');
    writeFileSync(path, io.stdout);
    expect((await openTrace(path)).format).toBe('shack');
  });
});
