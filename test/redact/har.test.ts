/**
 * `convert --to har` redacts what it writes: a HAR file or an HTTP exchange capture holds credentials as they were
 * sent (headers, cookies, the URL's query, bodies), and none of them may reach the HAR tapedeck writes; what is
 * not a secret stays as it was. A trace tapedeck recorded is redacted already and comes out unchanged.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/redact/compile.js';
import { createRedactor } from '../../src/redact/engine.js';
import { toHar } from '../../src/redact/har.js';
import type { RedactMode } from '../../src/redact/types.js';
import type { TraceEntry } from '../../src/trace/import/opened.js';
import type { MetaLine, RecordLine, TraceLine } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';

const io = useCliHarness('tapedeck-har-redact-');

const GITHUB = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const API_KEY = 'k-opaque-api-key-value';
const COOKIE = 'sid=c00kie-session-value';
const QUERY_TOKEN = 'plain-query-token-value';
const ENCODED = 'abcd1234efgh5678';
const ARGUMENT = 'opaque-argument-secret';
const RESULT = 'opaque-result-secret';
const AUTH_TOKEN = 'opaque-response-token';
const SECRETS = [
  GITHUB,
  API_KEY,
  COOKIE,
  'c00kie-session-value',
  QUERY_TOKEN,
  ENCODED,
  ARGUMENT,
  RESULT,
  AUTH_TOKEN,
];

const URL_WITH_SECRETS = `https://mcp.example.com/mcp?key=${GITHUB}&access_token=${QUERY_TOKEN}&note=Bearer%20${ENCODED}&mode=fast`;
const REQUEST = {
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'deploy', arguments: { apiKey: ARGUMENT, note: `pushed with ${GITHUB}` } },
};
const ANSWER = { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'ok' }], token: RESULT } };

const PLAIN_REQUEST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  'user-agent': 'inspector/1.0',
};

const har = {
  log: {
    version: '1.2',
    creator: { name: 'WebInspector', version: '537.36' },
    entries: [
      {
        startedDateTime: '2026-03-01T10:00:00.000Z',
        time: 30,
        request: {
          method: 'POST',
          url: URL_WITH_SECRETS,
          httpVersion: 'HTTP/1.1',
          headers: [
            ...Object.entries(PLAIN_REQUEST_HEADERS).map(([name, value]) => ({ name, value })),
            { name: 'Authorization', value: `Bearer ${GITHUB}` },
            { name: 'X-API-Key', value: API_KEY },
            { name: 'Cookie', value: COOKIE },
          ],
          cookies: [{ name: 'sid', value: 'c00kie-session-value' }],
          queryString: [
            { name: 'key', value: GITHUB },
            { name: 'access_token', value: QUERY_TOKEN },
            { name: 'note', value: `Bearer ${ENCODED}` },
            { name: 'mode', value: 'fast' },
          ],
          postData: { mimeType: 'application/json', text: JSON.stringify(REQUEST) },
        },
        response: {
          status: 200,
          headers: [
            { name: 'Content-Type', value: 'application/json' },
            { name: 'Set-Cookie', value: `${COOKIE}; HttpOnly` },
            { name: 'X-Auth-Token', value: AUTH_TOKEN },
            { name: 'Mcp-Session-Id', value: 'session-1' },
          ],
          cookies: [{ name: 'sid', value: 'c00kie-session-value', httpOnly: true }],
          content: { mimeType: 'application/json', text: JSON.stringify(ANSWER) },
        },
        timings: { send: 0, wait: 20, receive: 10 },
      },
    ],
  },
};

const capture = [
  {
    method: 'POST',
    url: URL_WITH_SECRETS,
    requestHeaders: {
      ...PLAIN_REQUEST_HEADERS,
      authorization: `Bearer ${GITHUB}`,
      'x-api-key': API_KEY,
      cookie: COOKIE,
    },
    requestBody: REQUEST,
    status: 200,
    responseHeaders: {
      'content-type': 'text/event-stream',
      'set-cookie': [`${COOKIE}; HttpOnly`, `theme=dark; token=${GITHUB}`],
      'x-auth-token': AUTH_TOKEN,
      'mcp-session-id': 'session-1',
    },
    responseBody: `id: ${GITHUB}\ndata: ${JSON.stringify(ANSWER)}\n\n`,
  },
];

interface Pair {
  name: string;
  value: string;
}

async function convertToHar(name: string, doc: unknown): Promise<string> {
  const input = join(io.dir, name);
  writeFileSync(input, JSON.stringify(doc));
  const out = join(io.dir, `${name}.out.har`);
  expect(await io.run(['convert', input, '--to', 'har', '-o', out])).toBe(0);
  return readFileSync(out, 'utf8');
}

function headerValue(pairs: Pair[], name: string): string | undefined {
  return pairs.find((pair) => pair.name.toLowerCase() === name)?.value;
}

describe.each([
  ['a HAR file', 'browser.har', har],
  ['an HTTP exchange capture', 'capture.json', capture],
])('convert --to har from %s', (_what, name, doc) => {
  it('leaves no credential in headers, cookies, URL, query or bodies', async () => {
    const text = await convertToHar(name, doc);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const [entry] = JSON.parse(text).log.entries;
    const { request, response } = entry;
    for (const header of ['authorization', 'x-api-key', 'cookie']) {
      expect(headerValue(request.headers, header)).toMatch(/^\[REDACTED:[a-z-]+\]$/);
    }
    for (const header of ['set-cookie', 'x-auth-token']) {
      expect(headerValue(response.headers, header)).toMatch(/^\[REDACTED:[a-z-]+\]$/);
    }
    expect(request.cookies).toEqual([]);
    expect(response.cookies).toEqual([]);
    expect(request.url).toBe(
      'https://mcp.example.com/mcp?key=[REDACTED:github-token]&access_token=[REDACTED:token]' +
        '&note=Bearer%20[REDACTED:http-credential]&mode=fast',
    );
    expect(request.queryString).toEqual([
      { name: 'key', value: '[REDACTED:github-token]' },
      { name: 'access_token', value: '[REDACTED:token]' },
      { name: 'note', value: 'Bearer [REDACTED:http-credential]' },
      { name: 'mode', value: 'fast' },
    ]);
    expect(JSON.parse(request.postData.text).params.arguments).toEqual({
      apiKey: '[REDACTED:api-key]',
      note: 'pushed with [REDACTED:github-token]',
    });
    expect(response.content.text).toContain('"token":"[REDACTED:token]"');
  });

  it('keeps what is not a secret as it was', async () => {
    const [entry] = JSON.parse(await convertToHar(name, doc)).log.entries;
    for (const [header, value] of Object.entries(PLAIN_REQUEST_HEADERS)) {
      expect(headerValue(entry.request.headers, header), header).toBe(value);
    }
    // The session id is kept as a stable hash: the same session, the same marker, no capability.
    expect(headerValue(entry.response.headers, 'mcp-session-id')).toMatch(
      /^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/,
    );
    expect(entry.request.method).toBe('POST');
    expect(entry.response.status).toBe(200);
    expect(JSON.parse(entry.request.postData.text).params.name).toBe('deploy');
  });

  it('writes the same HAR when given its own output', async () => {
    const once = await convertToHar(name, doc);
    expect(await convertToHar(`again-${name}.har`, JSON.parse(once))).toBe(once);
  });
});

describe('a trace tapedeck recorded', () => {
  const sha = (value: string) => createHash('sha256').update(value).digest('hex');

  /** The lines of an HTTP exchange with secrets, redacted as a recording redacts them. */
  function recorded(mode: RedactMode) {
    const redact = createRedactor(
      { defaults: true, rules: [], mode },
      mode === 'hash' ? { hasher: sha } : {},
    );
    const t = '2026-03-01T10:00:00.000Z';
    const meta: MetaLine = { v: 1, type: 'meta', startedAt: t, label: 'recorded', transport: 'http' };
    const lines: TraceLine[] = [
      meta,
      {
        t,
        seq: 1,
        type: 'http',
        conn: 's1',
        stream: 's1',
        dir: 'in',
        method: 'POST',
        url: `https://mcp.example.com/mcp?key=${GITHUB}&mode=fast`,
        headers: capture[0]!.requestHeaders,
      },
      { t, seq: 2, dir: 'in', raw: REQUEST, conn: 's1', stream: 's1' },
      {
        t,
        seq: 3,
        type: 'http',
        conn: 's1',
        stream: 's1',
        dir: 'out',
        status: 200,
        headers: capture[0]!.responseHeaders,
      },
      { t, seq: 4, dir: 'out', raw: ANSWER, conn: 's1', stream: 's1', eventId: 'e1' },
    ].map((line) => redact(line as TraceLine));
    return {
      meta: lines[0] as MetaLine,
      async *lines(): AsyncGenerator<TraceEntry> {
        for (const line of lines.slice(1)) {
          yield { line: line as RecordLine, file: 'recorded.jsonl', lineNo: 0, segment: 0 };
        }
      },
    };
  }

  it.each(['marker', 'hash'] as const)(
    'comes out as recorded, its %s-mode markers redacting to themselves',
    async (mode) => {
      const none = compile({ defaults: false, rules: [], mode: 'marker' });
      const redacted = await toHar(recorded(mode));
      expect(redacted).toBe(await toHar(recorded(mode), 'recorded', { redact: none }));
      expect(redacted).toContain('[REDACTED:authorization-header');
      for (const secret of SECRETS) expect(redacted).not.toContain(secret);
    },
  );
});
