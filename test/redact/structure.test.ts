import { describe, expect, it } from 'vitest';
import {
  compile,
  createRedactor,
  redactJson,
  redactLine,
  redactText,
  TraceState,
} from '../../src/redact/index.js';
import type { Json, MessageLine, StderrLine, TraceLine } from '../../src/trace/types.js';
import { b64, chars, hex } from './fabricate.js';

const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
const T = '2026-12-01T00:00:00.000Z';
const GITHUB = `ghp_${chars(36)}`;
const SECRET = 'Hunter2-Correct-Horse-77';

const result = (text: string): MessageLine => ({
  t: T,
  seq: 1,
  dir: 'out',
  raw: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } },
});
const textOf = (line: TraceLine): string =>
  ((line as MessageLine).raw as { result: { content: { text: string }[] } }).result.content[0]!.text;

describe('JSON inside a string', () => {
  it('is walked like a message: key rules included, written back in its own layout', () => {
    expect(redactText('{"apiKey":"abc","region":"eu-west-1"}', compiled)).toBe(
      '{"apiKey":"[REDACTED:api-key]","region":"eu-west-1"}',
    );
    const pretty = JSON.stringify({ user: 'ada', credentials: { password: SECRET }, n: 1 }, null, 2);
    expect(textOf(redactLine(result(pretty), compiled))).toBe(
      JSON.stringify({ user: 'ada', credentials: '[REDACTED:credentials]', n: 1 }, null, 2),
    );
  });

  it('is opened again when it was stringified twice', () => {
    const twice = JSON.stringify({ body: JSON.stringify({ client_secret: SECRET, scope: 'read' }) });
    const out = redactText(twice, compiled);
    expect(out).not.toContain(SECRET);
    expect(JSON.parse(JSON.parse(out).body)).toEqual({ client_secret: '[REDACTED:secret]', scope: 'read' });
    // The same text inside a log line, not JSON as a whole: the escaped pair is found in the text.
    expect(redactText(`sent ${twice} upstream`, compiled)).toBe(
      `sent ${twice.replace(SECRET, '[REDACTED:secret]')} upstream`,
    );
  });

  it('is left byte for byte as it was when it holds nothing to hide', () => {
    const texts = [
      '{"a": 1,  "b": [true, null], "c": "x"}',
      '[\n\t{"max_tokens": 5, "progressToken": "p-1"}\n]',
      '{"id": 12345678901234567890, "v": 1.0}',
    ];
    for (const text of texts) {
      const line = result(text);
      expect(redactLine(line, compiled)).toBe(line);
    }
  });
});

describe('NAME=value, name: value and "name": "value" in free text', () => {
  it.each([
    [`FOO_SECRET=${SECRET}\nDB_PASSWORD=${SECRET}\nDD_API_KEY=${hex(32)}\nPATH=/usr/bin`, 3, 'PATH=/usr/bin'],
    [`export GITHUB_TOKEN="${SECRET}"`, 1, 'export GITHUB_TOKEN="'],
    [`password: ${SECRET}\nuser: ada`, 1, 'user: ada'],
    [`  api_key: '${SECRET}'\n  region: eu-west-1`, 1, 'region: eu-west-1'],
    [`[db]\npassword = ${SECRET}\nport = 5432`, 1, 'port = 5432'],
    [`https://api.example.com/v1?api_key=${SECRET}&page=2&access_token=${SECRET}#top`, 2, '&page=2&'],
    [`Cookie: sid=${SECRET}; theme=dark`, 1, 'Cookie: '],
    [`upstream answered with Set-Cookie: session=${SECRET}; Path=/; HttpOnly`, 1, 'upstream answered with '],
    [`calling with X-Api-Key: ${SECRET} now`, 1, 'calling with X-Api-Key: '],
    [`Server=db;Database=app;User Id=sa;Password=${SECRET};Encrypt=true`, 1, ';Encrypt=true'],
    [`config {"password": "${SECRET}", "retries": 3}`, 1, '"retries": 3'],
    [`python said {'api_key': '${SECRET}'}`, 1, "python said {'api_key': '"],
    [`login failed for ada (password ${SECRET})`, 1, 'login failed for ada (password '],
  ])('%s', (text, hidden, kept) => {
    const out = redactText(text, compiled);
    expect(out).not.toContain(SECRET);
    expect(out.split('[REDACTED:').length - 1).toBe(hidden);
    expect(out).toContain(kept);
  });

  it('hide a signature longer than a token rule reads to its end, leaving no tail', () => {
    const url = `https://acct.blob.core.windows.net/c/f.pdf?sv=2022-11-02&sig=${b64(300)}%2B${b64(40)}%3D&se=2026`;
    expect(redactText(url, compiled)).toMatch(
      /^https:\/\/acct\.blob\.core\.windows\.net\/c\/f\.pdf\?sv=2022-11-02&sig=\[REDACTED:[a-z-]+\]&se=2026$/,
    );
  });

  it.each([
    'max_tokens=1024 temperature=0.2',
    'tokenizer: cl100k_base',
    'Reset your password: use the link we sent',
    'The password must be 12 characters long.',
    'note: the token expires in an hour',
    'a == b && c => d',
    'time: 12:30:00, url: https://example.com:8443/path',
    'token_type=Bearer',
    'Your password expires in 3 days; password reset links last 24h.',
  ])('leaves %s alone', (text) => {
    expect(redactText(text, compiled)).toBe(text);
  });
});

describe('{name|key|header, value} objects', () => {
  it('hide the value when the name is secret-like', () => {
    const value: Json = {
      env: [
        { name: 'DB_PASSWORD', value: SECRET },
        { name: 'LOG_LEVEL', value: 'debug' },
      ],
      headers: [
        { key: 'Authorization', value: `Bearer ${SECRET}` },
        { name: 'x-goog-api-key', value: SECRET },
        { name: 'Accept', value: 'application/json' },
      ],
      pair: { header: 'Cookie', value: `sid=${SECRET}` },
    };
    expect(redactJson(value, compiled)).toEqual({
      env: [
        { name: 'DB_PASSWORD', value: '[REDACTED:password]' },
        { name: 'LOG_LEVEL', value: 'debug' },
      ],
      headers: [
        { key: 'Authorization', value: '[REDACTED:authorization-header]' },
        { name: 'x-goog-api-key', value: '[REDACTED:api-key-header]' },
        { name: 'Accept', value: 'application/json' },
      ],
      pair: { header: 'Cookie', value: '[REDACTED:cookie-header]' },
    });
  });
});

describe('the shapes a name and its value take apart from a key', () => {
  const VALUE = 'Tr0ub4dor&3-no-shape';
  const SHAPES: Array<[string, (name: string, value: Json) => Json]> = [
    ['{name, value}', (name, value) => ({ name, value })],
    ['{Name, Value} (AWS)', (name, value) => ({ Name: name, Value: value })],
    ['{key, value}', (name, value) => ({ key: name, value })],
    ['{Key, Value}', (name, value) => ({ Key: name, Value: value })],
    ['{ParameterKey, ParameterValue}', (name, value) => ({ ParameterKey: name, ParameterValue: value })],
    ['{field, value}', (name, value) => ({ field: name, value })],
    ['{label, value} (a form field)', (name, value) => ({ label: name, value, required: true })],
    ['{variable, value}', (name, value) => ({ variable: name, value })],
    ['{header, val}', (name, value) => ({ header: name, val: value })],
    ['{name, values}', (name, value) => ({ name, values: [value] })],
    [
      '[[name, value]] (header entries)',
      (name, value) => [
        ['Accept', 'text/plain'],
        [name, value],
      ],
    ],
    ['rawHeaders', (name, value) => ({ rawHeaders: ['Host', 'example.com', name, value] })],
  ];
  const NAMES = ['Authorization', 'X-Api-Key', 'Cookie', 'DB_PASSWORD', 'client_secret', 'GITHUB_TOKEN'];

  for (const [shape, make] of SHAPES) {
    it.each(
      NAMES.filter(
        (name) =>
          shape !== 'rawHeaders' || name.includes('-') || name === 'Cookie' || name === 'Authorization',
      ),
    )(`${shape} hides the value named %s, as a string and as a number`, (name) => {
      expect(JSON.stringify(redactJson(make(name, VALUE), compiled))).not.toContain(VALUE);
      if (shape !== 'rawHeaders') {
        expect(JSON.stringify(redactJson(make(name, 73_194_205), compiled))).not.toContain('73194205');
      }
    });
    it(`${shape} keeps a value whose name is no secret`, () => {
      const value = make('Accept-Language', 'en-GB');
      expect(redactJson(value, compiled)).toBe(value);
    });
  }

  it('hides the value of a form field whose type is password', () => {
    expect(redactJson({ id: 'pw', type: 'password', value: VALUE }, compiled)).toEqual({
      id: 'pw',
      type: 'password',
      value: '[REDACTED:password]',
    });
  });

  it('walks a schema that describes a secret field, hiding only the values it gives', () => {
    const schema: Json = {
      type: 'object',
      properties: {
        password: { type: 'string', format: 'password', minLength: 12, default: VALUE },
        api_key: { type: 'string', description: 'Your API key' },
      },
      required: ['password', 'api_key'],
    };
    expect(redactJson(schema, compiled)).toEqual({
      type: 'object',
      properties: {
        password: { type: 'string', format: 'password', minLength: 12, default: '[REDACTED:password]' },
        api_key: { type: 'string', description: 'Your API key' },
      },
      required: ['password', 'api_key'],
    });
  });
});

describe('numbers and booleans under secret-named keys', () => {
  const NAMES = [
    'password',
    'pwd',
    'passphrase',
    'secret',
    'api_key',
    'apiKey',
    'token',
    'pin_code',
    'otp',
    'totp',
    'passcode',
    'cvv',
    'cvc',
    'signing_key',
    'auth',
  ];

  it.each(NAMES)('%s: hidden in JSON, in JSON inside a string, in a log line and as NAME=value', (name) => {
    expect(redactJson({ [name]: 482_913 }, compiled)).toEqual({
      [name]: expect.stringMatching(/^\[REDACTED:/),
    });
    expect(redactJson({ [name]: true }, compiled)).toEqual({ [name]: expect.stringMatching(/^\[REDACTED:/) });
    for (const text of [
      JSON.stringify({ user: 'ada', [name]: 482913 }),
      `login failed for {"user": "ada", "${name}": 482913}`,
      `calling with ${name}=482913 now`,
      `{\\"${name}\\":482913}`,
    ]) {
      expect(redactText(text, compiled), text).not.toContain('482913');
    }
  });

  it.each([
    ['token_count', 317],
    ['password_min_length', 12],
    ['auth_enabled', true],
    ['session_token_ttl', 3600],
    ['token_usage', { input_tokens: 12, output_tokens: 34 }],
  ])('%s keeps its %s: a quantity or a setting, not a secret', (name, value) => {
    const json = { [name]: value };
    expect(redactJson(json, compiled)).toBe(json);
    expect(redactText(JSON.stringify(json), compiled)).toBe(JSON.stringify(json));
  });
});

describe('base64 that decodes to a secret', () => {
  const encode = (text: string) => Buffer.from(text).toString('base64');

  it('is hidden whole, named by what it held', () => {
    expect(redactText(`data: ${encode(`{"apiKey":"${SECRET}"}`)}`, compiled)).toBe(
      'data: [REDACTED:api-key]',
    );
    expect(redactText(`auth ${encode(`token ${GITHUB}`)} ok`, compiled)).toBe(
      'auth [REDACTED:github-token] ok',
    );
    expect(redactText(encode(`DB_PASSWORD=${SECRET}`), compiled)).toBe('[REDACTED:password]');
  });

  it('is left alone when it decodes to binary or to text with nothing to hide', () => {
    const png = `iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==`;
    const texts = [
      png,
      b64(4000),
      encode('just some words that are not secret at all'),
      encode('a'.repeat(30)),
    ];
    for (const text of texts) expect(redactText(text, compiled)).toBe(text);
  });
});

describe('nesting', () => {
  const nested = (depth: number, leaf: Json): Json => {
    let value = leaf;
    for (let i = 0; i < depth; i += 1) value = [value];
    return value;
  };

  it('a message nested 10,000 deep costs no stack: kept when clean, hidden when not', () => {
    const clean: MessageLine = { t: T, seq: 1, dir: 'out', raw: { id: 1, result: nested(10_000, 'x') } };
    expect(redactLine(clean, compiled)).toBe(clean);
    const secret: MessageLine = { t: T, seq: 2, dir: 'out', raw: { id: 1, result: nested(10_000, GITHUB) } };
    const out = redactLine(secret, compiled);
    expect(JSON.stringify(out)).not.toContain(GITHUB);
  });

  it('a line with a secret and a deep clean part stays writable', () => {
    const line: MessageLine = {
      t: T,
      seq: 3,
      dir: 'out',
      raw: { id: 1, result: { token: SECRET, deep: nested(10_000, 'x') } },
    };
    const out = redactLine(line, compiled);
    const written = JSON.stringify(out);
    expect(written).not.toContain(SECRET);
    expect(written).toContain('[REDACTED:nesting-limit]');
  });

  // How the time grows with the depth (linearly) is measured in bench/ (`npm run bench`, the redaction part's
  // "JSON nested deep around a token"), where a busy machine cannot pass for a slow parser.
  it('a string holding JSON nested 10,000 deep costs no stack, and its token is hidden', () => {
    const deep = `${'['.repeat(10_000)}"${GITHUB}"${']'.repeat(10_000)}`;
    const out = redactText(deep, compiled);
    expect(out).not.toContain(GITHUB);
    expect(out).toContain('[REDACTED:github-token]');
  });
});

describe('the MCP session id', () => {
  it('is one stable hash in the header, the session event, a legacy parameter and the conn filed under it', () => {
    const id = '75100744-e3d1-4f53-8d12-5556cf935de7';
    const redact = createRedactor({ defaults: true, rules: [], mode: 'marker' });
    const lines: TraceLine[] = [
      { t: T, seq: 1, type: 'http', conn: 'h1', dir: 'out', status: 200, headers: { 'mcp-session-id': id } },
      { t: T, seq: 2, type: 'event', name: 'session', conn: 'h1', sessionId: id },
      { t: T, seq: 3, type: 'http', conn: id, dir: 'in', method: 'POST', headers: { 'Mcp-Session-Id': id } },
      { t: T, seq: 4, dir: 'in', conn: id, raw: { jsonrpc: '2.0', id: 2, method: 'tools/list' } },
      { t: T, seq: 5, type: 'event', name: 'endpoint', conn: id, url: `/message?sessionId=${id}` },
    ];
    const out = lines.map((line) => JSON.stringify(redact(line)));
    expect(out.join('\n')).not.toContain(id);
    const markers = new Set(
      out.flatMap((text) => text.match(/\[REDACTED:mcp-session-id:[0-9a-f]{12}\]/g) ?? []),
    );
    expect(markers.size).toBe(1);
    // The recorder's own exchange ids are not session ids.
    expect(JSON.parse(out[0]!).conn).toBe('h1');
  });

  it('leaves a conn it was never shown as a session id alone (an instrumented server names its own)', () => {
    const line: MessageLine = { t: T, seq: 1, dir: 'in', conn: 'user-7', raw: { id: 1, method: 'ping' } };
    expect(createRedactor({ defaults: true, rules: [], mode: 'marker' })(line)).toBe(line);
  });
});

describe('SSE event ids', () => {
  it('are one stable hash in the message that carried them and in the Last-Event-ID that resumes them', () => {
    const id = '0b7d8a6e-2f3c-4d1e-8b9a-7c6d5e4f3a2b_1733000000000_k3x9q2m1';
    const redact = createRedactor({ defaults: true, rules: [], mode: 'marker' });
    const message = redact({
      t: T,
      seq: 1,
      dir: 'out',
      eventId: id,
      raw: { jsonrpc: '2.0', id: 1, result: {} },
    });
    const resume = redact({
      t: T,
      seq: 2,
      type: 'http',
      conn: 'h2',
      dir: 'in',
      headers: { 'Last-Event-ID': id },
    });
    expect(message.eventId).toMatch(/^\[REDACTED:sse-event-id:[0-9a-f]{12}\]$/);
    expect(resume.headers['Last-Event-ID']).toBe(message.eventId);
  });

  it('that are counters stay as they are', () => {
    const redact = createRedactor({ defaults: true, rules: [], mode: 'marker' });
    const line: MessageLine = {
      t: T,
      seq: 1,
      dir: 'out',
      eventId: 'e7',
      raw: { jsonrpc: '2.0', id: 1, result: {} },
    };
    expect(redact(line)).toBe(line);
  });
});

describe('percent-encoded secrets', () => {
  const encoded = encodeURIComponent(`Bearer ${GITHUB}`);
  it.each([
    ['a URL', { url: `https://api.example.com/cb?auth=${encoded}&page=2` }],
    [
      'a Referer header',
      { headers: { Referer: `https://app.example.com/login?next=%2Fhome&token=${SECRET}` } },
    ],
    [
      'a Content-Location header',
      { headers: { 'Content-Location': `/files?sig=${encodeURIComponent(`${hex(40)}+/=`)}` } },
    ],
    [
      'a Link header',
      { headers: { Link: `<https://api.example.com/items?page=2&api_key=${SECRET}>; rel="next"` } },
    ],
    [
      'a resource URI',
      {
        uri: `https://drive.example.com/doc?redirect=${encodeURIComponent(`https://ada:${SECRET}@db.example.com/`)}`,
      },
    ],
    [
      'a form body',
      { body: `grant_type=refresh_token&client_secret=${encodeURIComponent(SECRET)}&scope=read+write` },
    ],
  ])('are hidden in %s, where they are written', (_where, value) => {
    const out = JSON.stringify(redactJson(value as Json, compiled));
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(encodeURIComponent(SECRET));
    expect(out).not.toContain(GITHUB);
    expect(out).toContain('[REDACTED:');
  });

  it('leave an encoded URL with nothing to hide byte for byte', () => {
    const url = 'https://example.com/search?q=token%20bucket+size&lang=en%2DGB';
    expect(redactText(url, compiled)).toBe(url);
  });
});

describe('line streams', () => {
  const stderr = (text: string, seq: number): StderrLine => ({ t: T, seq, type: 'stderr', text });
  const run = (texts: string[]) => {
    const state = new TraceState();
    return texts.map((text, i) => redactLine(stderr(text, i), compiled, undefined, state).text);
  };
  const body = (n: number) => Array.from({ length: n }, () => b64(64));

  it.each([
    ['RSA PRIVATE KEY', []],
    ['OPENSSH PRIVATE KEY', []],
    ['PGP PRIVATE KEY BLOCK', ['Version: GnuPG v2', '']],
    ['ENCRYPTED PRIVATE KEY', []],
  ])('hide a %s printed line by line from BEGIN to END', (label, headers) => {
    const lines = [
      'loading key',
      `-----BEGIN ${label}-----`,
      ...headers,
      ...body(5),
      `${b64(20)}==`,
      `-----END ${label}-----`,
      'key loaded',
    ];
    const out = run(lines);
    expect(out[0]).toBe('loading key');
    expect(out.at(-1)).toBe('key loaded');
    for (const text of out.slice(1, -1)) expect(text).toBe('[REDACTED:private-key-pem]');
  });

  it('hide a base64 dump of a PKCS#12 file or DER key to its last line', () => {
    const p12 = `MIIKPwIBAzCCCgUGCSqGSIb3DQEHAaCCCfYEggnyMIIJ7jCCBGIGCSqGSIb3DQEH${b64(0)}`;
    const lines = ['exporting', p12, ...body(4), b64(30), 'done'];
    const out = run(lines);
    expect(out[0]).toBe('exporting');
    expect(out.at(-1)).toBe('done');
    for (const text of out.slice(1, -1)) expect(text).toBe('[REDACTED:private-key-der]');
  });

  describe('a secret whose parts land on separate lines (the first recorded before it ended)', () => {
    const piece = (text: string, seq: number, partial: boolean): StderrLine => ({
      t: T,
      seq,
      type: 'stderr',
      text,
      ...(partial ? { partial: true } : {}),
    });
    const pieces = (lines: Array<[string, boolean]>) => {
      const state = new TraceState();
      return lines.map(
        ([text, partial], i) => redactLine(piece(text, i, partial), compiled, undefined, state).text,
      );
    };

    it('hides the rest of a token that another line landed between', () => {
      const out = pieces([
        ['upstream Authorization: Bearer ', true],
        [GITHUB.slice(0, 12), true],
        ['worker 2 ready', false],
        [`${GITHUB.slice(12)} (retrying)`, false],
      ]);
      expect(out.join('\n')).not.toContain(GITHUB.slice(12, 30));
      expect(out.join('\n')).not.toContain(GITHUB.slice(4, 12));
      expect(out[2]).toBe('worker 2 ready');
      expect(out[3]).toMatch(/^\[REDACTED:[a-z-]+\] \(retrying\)$/);
    });

    it('hides the second half of a token a rule only knows whole', () => {
      const out = pieces([
        [`using key ${GITHUB.slice(0, 20)}`, true],
        [`${GITHUB.slice(20)} for the upload`, false],
      ]);
      expect(out[1]).toBe('[REDACTED:github-token] for the upload');
    });

    it('leaves the lines after a complete line, and words that read as prose, alone', () => {
      const after = pieces([
        [`using key ${GITHUB.slice(0, 20)}`, false],
        [GITHUB.slice(20), false],
      ]);
      expect(after[1]).toBe(GITHUB.slice(20));
      const prose = pieces([
        ['Enter the token: ', true],
        ['Connected to the server', false],
      ]);
      expect(prose[1]).toBe('Connected to the server');
    });
  });

  it('end a block cut off before its END at the first line that is not block text', () => {
    const out = run(['-----BEGIN PRIVATE KEY-----', ...body(2), 'server listening on 8080']);
    expect(out.slice(0, 3)).toEqual(Array(3).fill('[REDACTED:private-key-pem]'));
    expect(out[3]).toBe('server listening on 8080');
  });
});
