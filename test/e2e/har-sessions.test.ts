/**
 * A trace converted to HAR keeps its MCP sessions. Three SDK client sessions with server-everything over Streamable
 * HTTP, recorded through the recording proxy (default redaction: session ids hashed), are converted with
 * `tapedeck convert --to har`; the HAR read back holds the same sessions, and `tapedeck verify` of the HAR against
 * the live server re-drives them as the trace's own verify does: three sessions, every exchange a match.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySessions } from '../../src/live/verify-sessions.js';
import { loadCassette } from '../../src/replay/cassette/load.js';
import { type RunningEverything, startEverything, startRecording } from '../helpers/http-proxy.js';
import { makeTempDir, removeTempDir } from '../helpers/peers.js';
import { spawnTapedeck } from '../helpers/proxy.js';

const SESSIONS = 3;

describe('an HTTP trace converted to HAR and verified', () => {
  let tmp: string | undefined;
  let server: RunningEverything | undefined;
  let trace: string;
  let har: string;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-har-sessions-');
    server = await startEverything('streamableHttp');
    const recording = await startRecording(`${server.origin}/mcp`);
    for (let i = 0; i < SESSIONS; i++) {
      const client = new Client({ name: `har-client-${i}`, version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(recording.proxy.url));
      await client.connect(transport);
      await client.listTools();
      await client.callTool({ name: 'echo', arguments: { message: `session ${i}` } });
      await client.callTool({ name: 'get-sum', arguments: { a: i, b: 2 } });
      await transport.terminateSession();
      await client.close();
    }
    await recording.stop();
    trace = join(tmp, 'everything-http.jsonl');
    writeFileSync(trace, `${recording.sink.text.join('\n')}\n`, { mode: 0o600 });
    har = join(tmp, 'everything-http.har');
    const converted = await spawnTapedeck(['convert', trace, '--to', 'har', '-o', har]).done;
    expect(converted.stderr).toBe('');
    expect(converted.code).toBe(0);
  });

  afterAll(async () => {
    await server?.stop();
    await removeTempDir(tmp);
  });

  it('reads back with the sessions of the trace, each with the same requests', async () => {
    const sessions = async (file: string) =>
      verifySessions((await loadCassette(file)).cassette).map((session) => ({
        conn: session.conn,
        methods: session.steps.map((step) =>
          step.kind === 'exchange' ? step.exchange.method : step.note.method,
        ),
      }));
    const fromTrace = await sessions(trace);
    expect(fromTrace).toHaveLength(SESSIONS);
    expect(await sessions(har)).toEqual(fromTrace);
  });

  it('verifies against the live server in the same sessions, every exchange a match', async () => {
    const verify = (file: string) =>
      spawnTapedeck(['verify', file, '--upstream', `${server!.origin}/mcp`]).done;
    const [direct, viaHar] = [await verify(trace), await verify(har)];
    const line = `verified ${SESSIONS * 4} exchanges in ${SESSIONS} sessions: ${SESSIONS * 4} match, 0 differ`;
    expect(direct.stdout.toString('utf8')).toContain(line);
    expect(viaHar.stdout.toString('utf8')).toContain(line);
    expect(viaHar.code).toBe(0);
  });
});
