/**
 * shack-session-replay's usage, done the way its README shows it: JSON-RPC lines piped into the server's stdin, no
 * SDK in between — first a recording (initialize, start_recording, record_event, stop_recording), then a second
 * process that looks the response up. stdout must carry nothing but the protocol answers.
 */
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, REPO_ROOT, removeTempDir, TAPEDECK_BIN } from '../helpers/peers.js';
import { isolatedEnv } from './mcp-peer.js';

const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"shell","version":"1.0.0"}}}';

const RECORD = [
  INITIALIZE,
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_recording","arguments":{"name":"my_session"}}}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"record_event","arguments":{"request":{"method":"tools/call","params":{"name":"search","arguments":{"q":"typescript mcp"}}},"response":{"result":{"hits":["doc1","doc2"]}}}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stop_recording","arguments":{}}}',
];

const LOOKUP = [
  INITIALIZE,
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"replay_lookup","arguments":{"trajectory":"my_session","request":{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search","arguments":{"q":"typescript mcp"}}}}}}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"replay_lookup","arguments":{"trajectory":"my_session","request":{"method":"tools/call","params":{"name":"search","arguments":{"q":"something else"}}}}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_trajectories","arguments":{}}}',
];

interface Answer {
  jsonrpc: string;
  id: number;
  result: { content?: { type: string; text: string }[]; isError?: boolean; serverInfo?: { name: string } };
}

/** Pipes `lines` into `tapedeck mcp` and parses every stdout line as JSON (a non-JSON line fails the test). */
function pipe(
  lines: string[],
  dataDir: string,
  home: string,
): Promise<{ answers: Answer[]; code: number | null }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [TAPEDECK_BIN, 'mcp', '--data-dir', dataDir], {
      cwd: REPO_ROOT,
      env: isolatedEnv(home),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.once('error', fail);
    child.once('close', (code) => {
      const answers = stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Answer)
        .sort((a, b) => a.id - b.id);
      done({ answers, code });
    });
    child.stdin.end(`${lines.join('\n')}\n`);
  });
}

const text = (answer: Answer | undefined) => answer?.result.content?.[0]?.text;

describe('the shack-session-replay usage example, piped into tapedeck mcp', () => {
  let tmp: string;
  let data: string;
  let recorded: Awaited<ReturnType<typeof pipe>>;
  let looked: Awaited<ReturnType<typeof pipe>>;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-shack-');
    data = join(tmp, 'trajectories');
    recorded = await pipe(RECORD, data, tmp);
    // A trajectory file of shack-session-replay's own sits in the same folder.
    copyFileSync(
      join(REPO_ROOT, 'test/fixtures/interop/shack/my_session.json'),
      join(data, 'from_shack.json'),
    );
    looked = await pipe(LOOKUP, data, tmp);
  });

  afterAll(() => removeTempDir(tmp));

  it('answers every line of the recording run, and exits 0 when stdin ends', () => {
    expect(recorded.code).toBe(0);
    expect(recorded.answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(recorded.answers[0]?.result.serverInfo?.name).toBe('tapedeck');
    expect(recorded.answers.slice(1).map(text)).toEqual([
      'Recording started: my_session',
      'Event recorded (total in session: 1)',
      `Recording 'my_session' saved with 1 event(s) at ${join(data, 'my_session.jsonl')}`,
    ]);
    expect(recorded.answers.every((a) => a.result.isError === undefined)).toBe(true);
  });

  it('looks the response up in a later process: matched with the recorded response, or matched false', () => {
    expect(looked.code).toBe(0);
    const hit = JSON.parse(text(looked.answers[1]) ?? '') as Record<string, unknown>;
    expect(hit).toEqual({
      matched: true,
      response: { result: { hits: ['doc1', 'doc2'] } },
      recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Object.keys(hit)).toEqual(['matched', 'response', 'recorded_at']);
    expect(text(looked.answers[2])).toBe('{"matched":false}');
    expect(JSON.parse(text(looked.answers[3]) ?? '')).toMatchObject({
      trajectories: [
        { name: 'from_shack', format: 'shack', events: 2 },
        { name: 'my_session', format: 'tapedeck', events: 1 },
      ],
    });
  });
});
