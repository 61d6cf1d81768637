/**
 * The bridge and the upstream client when things go wrong, in-process: an upstream nobody listens on, HTTP errors
 * with and without a JSON-RPC body, a dropped SSE stream resumed with Last-Event-ID, non-JSON lines from the
 * client, the 2026-07-28 era's routing headers, and bad --header flags. The HTTP server is a few lines of
 * node:http on an ephemeral port, doing what real servers cannot be made to do on demand.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHeaders, upstreamSpec } from '../../../src/cli/flags/upstream.js';
import { runHttpBridge } from '../../../src/proxy/bridge/bridge.js';
import { createRedactor } from '../../../src/redact/index.js';
import { MemorySink } from '../../../src/sink/memory.js';
import { newMeta } from '../../../src/trace/meta.js';
import { collectExchanges } from '../../../src/trace/pairing.js';
import type { Json } from '../../../src/trace/types.js';
import { freePort } from '../../helpers/http-peers.js';

type Handler = (body: Json, res: ServerResponse, headers: IncomingHttpHeaders, method: string) => void;
const servers: { close(): void }[] = [];

afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A scripted HTTP server: `handler` answers every request; `created` gets the server itself. */
async function scripted(handler: Handler, created?: (server: Server) => void): Promise<string> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    req.on('end', () =>
      handler(text === '' ? null : (JSON.parse(text) as Json), res, req.headers, req.method!),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  created?.(server);
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** The bridge over in-memory pipes, driven a line at a time: what the client read so far, and the trace. */
function startBridge(url: string, headers: Record<string, string> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let read = '';
  output.on('data', (chunk: Buffer) => {
    read += chunk.toString('utf8');
  });
  const sink = new MemorySink({ redact: createRedactor({ defaults: true, rules: [], mode: 'marker' }) });
  sink.start(newMeta({ label: 'test', transport: 'http', url }));
  const done = runHttpBridge({
    url,
    sink,
    input,
    output,
    errorOutput: new PassThrough(),
    headers,
    drainMs: 5000,
  });
  return {
    sink,
    done,
    send: (line: string) => input.write(`${line}\n`),
    end: () => input.end(),
    read: () => read,
    /** What the client read, a message a line. */
    answers: () =>
      read
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, Json>),
  };
}

/** Runs the bridge: writes `lines`, ends stdin, returns what the client read and the trace. */
async function bridge(url: string, lines: string[], headers: Record<string, string> = {}) {
  const session = startBridge(url, headers);
  for (const line of lines) session.send(line);
  session.end();
  const result = await session.done;
  await session.sink.close({ reason: 'process_exit', exitCode: result.exitCode });
  const { sink } = session;
  return { result, answers: session.answers(), lines: sink.lines, text: sink.text.join('\n') };
}

/** Waits until `predicate` holds (polling), failing after a few seconds. */
async function until(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('the bridge when the upstream fails', () => {
  it('answers a request to an unreachable upstream with an error naming the URL and the cause, and goes on', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const { result, answers, lines } = await bridge(url, [ping(1), 'a stray log line', ping(2)]);
    expect(result.failed).toBe(2);
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(JSON.stringify(answers[0]!.error)).toContain(
      `the upstream ${url} failed: cannot reach the upstream`,
    );
    expect(JSON.stringify(answers[0]!.error)).toContain('ECONNREFUSED');
    expect(lines.filter((line) => line.type === 'event' && line.name === 'upstream_error')).toHaveLength(2);
    expect(lines.find((line) => line.type === 'text')).toMatchObject({ dir: 'in', text: 'a stray log line' });
  });

  it('ends non-zero, saying why, when it never reached the upstream', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const { result } = await bridge(url, [ping(1)]);
    expect(result.exitCode).toBe(1);
    expect(result.transportError).toMatch(/^cannot reach the upstream .*ECONNREFUSED/);
  });

  it('records the errors it answers with as the client read them, marked as its own, and paired', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const { answers, lines } = await bridge(url, [ping(1), ping(2)]);
    const out = lines.filter((line) => line.type === undefined && line.dir === 'out');
    expect(out.map((line) => line.raw)).toEqual(answers);
    expect(out.every((line) => line.producedBy === 'tapedeck')).toBe(true);
    const paired = collectExchanges(lines);
    expect(paired.unanswered).toHaveLength(0);
    expect(paired.exchanges.map((x) => x.id).sort()).toEqual([1, 2]);
  });

  it('records the error for a request the upstream died on mid-session, under its session, and ends non-zero', async () => {
    let server: Server | undefined;
    const url = await scripted(
      (body, res) => {
        const id = (body as { id: number }).id;
        if (id === 1) {
          res
            .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-9' })
            .end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
          return;
        }
        // The server goes away with the second request open.
        res.socket?.destroy();
        server?.close();
      },
      (created) => {
        server = created;
      },
    );
    const { sink, done, send, end, read, answers } = startBridge(url);
    send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
    await until(() => read().includes('"id":1'));
    send(ping(2));
    end();
    const result = await done;
    expect(result.exitCode).toBe(1);
    const failedAnswer = answers().at(-1)!;
    expect(failedAnswer).toMatchObject({ id: 2, error: { code: -32000 } });
    const made = sink.lines.filter((line) => line.type === undefined && line.producedBy === 'tapedeck');
    // conn is the session id, kept as a stable hash.
    expect(made).toEqual([
      expect.objectContaining({
        dir: 'out',
        conn: expect.stringMatching(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/),
        raw: failedAnswer,
      }),
    ]);
    expect(collectExchanges(sink.lines).unanswered).toHaveLength(0);
  });

  it('ends 0 once the upstream answers again after a failure', async () => {
    let calls = 0;
    const url = await scripted((body, res) => {
      calls++;
      if (calls === 1) {
        res.socket?.destroy();
        return;
      }
      const id = (body as { id: number }).id;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
    const { done, send, end, read } = startBridge(url);
    send(ping(1));
    await until(() => read().includes('"id":1'));
    send(ping(2));
    end();
    const result = await done;
    expect(result.failed).toBe(1);
    expect(result).toMatchObject({ exitCode: 0 });
    expect(result.transportError).toBeUndefined();
  });

  it('quotes the status and body of a non-JSON HTTP error; the next request that succeeds gets through', async () => {
    let calls = 0;
    const url = await scripted((body, res) => {
      calls++;
      if (calls === 1) {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>upstream is down</body></html>');
        return;
      }
      const id = (body as { id: number }).id;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
    const { answers } = await bridge(url, [ping(1), ping(2)]);
    expect(answers[0]).toMatchObject({ id: 1, error: { code: -32000 } });
    expect(String((answers[0]!.error as { message: string }).message)).toContain(
      'answered 502 Bad Gateway: <html><body>upstream is down</body></html>',
    );
    expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('delivers a JSON-RPC error body of a 4xx as the answer, untouched', async () => {
    const refusal = { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'Session not found' } };
    const url = await scripted((_, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(refusal));
    });
    const { answers, lines } = await bridge(url, [ping(7)]);
    expect(answers).toEqual([refusal]);
    expect(lines.find((line) => line.type === 'http' && line.dir === 'out')).toMatchObject({ status: 404 });
  });
});

describe('the upstream client', () => {
  it('resumes a dropped answer stream with Last-Event-ID after the server’s retry delay', async () => {
    const seen: (string | undefined)[] = [];
    const url = await scripted((_, res, headers, method) => {
      seen.push(`${method} ${headers['last-event-id'] ?? ''}`);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
      if (method === 'POST') {
        // A progress event, then the connection drops before the response.
        res.end(
          `retry: 50\nid: e1\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`,
        );
        return;
      }
      res.end(`id: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { done: true } })}\n\n`);
    });
    const { answers, lines } = await bridge(url, [ping(3)]);
    expect(answers.map((a) => a.method ?? a.id)).toEqual(['notifications/progress', 3]);
    expect(seen).toEqual(['POST ', 'GET e1']);
    const events = lines.filter((line) => line.type === 'event').map((line) => line.name);
    expect(events).toContain('reconnect');
    const out = lines.filter((line) => line.type === undefined && line.dir === 'out');
    expect(out.map((line) => [line.stream, line.eventId])).toEqual([
      ['post-1', 'e1'],
      ['post-1', 'e2'],
    ]);
  });

  it('sends the 2026-07-28 routing headers a self-describing request calls for', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await scripted((body, res, headers) => {
      seen.push(headers);
      const id = (body as { id: number }).id;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: {}, _meta: meta },
    };
    const read = {
      jsonrpc: '2.0',
      id: 2,
      method: 'resources/read',
      params: { uri: 'demo://a', _meta: meta },
    };
    await bridge(url, [JSON.stringify(call), JSON.stringify(read)], { 'X-Team': 'blue' });
    expect(seen[0]).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'x-team': 'blue',
    });
    expect(seen[0]!['mcp-session-id']).toBeUndefined();
    expect(seen[1]).toMatchObject({ 'mcp-method': 'resources/read', 'mcp-name': 'demo://a' });
  });

  it('keeps an Authorization header out of the trace', async () => {
    const url = await scripted((body, res) => {
      const id = (body as { id: number }).id;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
    const { text } = await bridge(url, [ping(1)], { Authorization: 'Bearer sk-very-secret-0042' });
    expect(text).toContain('"authorization":"[REDACTED:');
    expect(text).not.toContain('sk-very-secret-0042');
  });
});

describe('--header flags', () => {
  it('take values from the environment', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    expect(parseHeaders(['Authorization: Bearer ${TOKEN}', 'X-Team:blue'], { TOKEN: 'abc' })).toEqual({
      Authorization: 'Bearer abc',
      'X-Team': 'blue',
    });
  });

  it('are usage errors without a colon, with a bad name, or naming a variable that is not set', () => {
    expect(() => parseHeaders(['Bearer abcdefghijklmnop'], {})).toThrow(
      "--header 'Bearer abcde…' has no ':'; expected 'Name: value'",
    );
    expect(() => parseHeaders(['Bad Name: x'], {})).toThrow(
      "--header name 'Bad Name' is not a valid HTTP header name",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    expect(() => parseHeaders(['Authorization: Bearer ${NOPE_TOKEN}'], {})).toThrow(
      expect.objectContaining({
        code: 'usage',
        message: '--header Authorization: the environment variable NOPE_TOKEN is not set',
      }),
    );
    expect(() => upstreamSpec({ upstream: 'ftp://example.com/mcp' }, {})).toThrow(
      "--upstream 'ftp://example.com/mcp' must be an http:// or https:// URL; got ftp:",
    );
    expect(() => upstreamSpec({ sse: true }, {})).toThrow('--sse needs --upstream URL');
  });

  it('refuse a value HTTP cannot carry once variables are read, naming the header and variable, never the value', () => {
    const attempt = (flag: string, env: Record<string, string>) => {
      try {
        parseHeaders([flag], env);
      } catch (err) {
        return err as { code: string; message: string };
      }
      throw new Error('accepted');
    };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    const lf = attempt('Authorization: Bearer ${TOKEN}', { TOKEN: 'tok-abc123\nline2' });
    expect(lf).toMatchObject({
      code: 'usage',
      message:
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
        '--header Authorization: its value (from ${TOKEN}) holds a line feed (LF), which an HTTP header cannot carry; expected one line of printable text (the value is not shown)',
    });
    expect(lf.message).not.toContain('tok-abc123');
    expect(attempt('X-A: one\rtwo', {}).message).toContain(
      '--header X-A: its value holds a carriage return (CR)',
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    expect(attempt('X-A: ${A}-${B}', { A: 'fine', B: 'x\u0000y' }).message).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
      'its value (from ${B}) holds a control character (U+0000)',
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    expect(attempt('X-A: ${A}', { A: 'caf\u20ac' }).message).toContain('a character outside Latin-1');
    // A line break at either end is trimmed away, as the shell's $(cat token) would.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    expect(parseHeaders(['Authorization: Bearer ${TOKEN}'], { TOKEN: 'abc\n' })).toEqual({
      Authorization: 'Bearer abc',
    });
    expect(parseHeaders(['X-A: tab\there caf\u00e9'], {})).toEqual({ 'X-A': 'tab\there caf\u00e9' });
  });

  it('are checked by the bridge too, before any line is read and without quoting the value', async () => {
    const sink = new MemorySink();
    sink.start(newMeta({ label: 'test', transport: 'http' }));
    const attempt = runHttpBridge({
      url: 'http://127.0.0.1:1/mcp',
      sink,
      input: new PassThrough(),
      output: new PassThrough(),
      headers: { Authorization: 'Bearer tok-abc123\r\nX-Evil: 1' },
    });
    await expect(attempt).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/^header Authorization: its value holds a carriage return \(CR\)/),
    });
    await expect(attempt).rejects.not.toMatchObject({ message: expect.stringContaining('tok-abc123') });
  });
});
