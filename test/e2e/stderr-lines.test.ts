/**
 * A stderr line that never ends, through the real recorder: it is recorded in bounded pieces while the session runs
 * (redacted, a token never split), and the client's answers are not held back by it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVERS, makeTempDir, removeTempDir, TAPEDECK_BIN, waitFor } from '../helpers/proxy.js';

const TOKEN = `ghp_${'Tn4Xw8Qz2Lp6Rv0Ks3Jm'}${'9Bd5Hc1Fg7Ye2Ua4'}`;
/** A ceiling, not a budget: on a loaded machine a process start alone may take seconds. */
const SESSION_MS = 45_000;
let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-stderr-lines-');
});
afterAll(async () => {
  await removeTempDir(dir);
});

describe('a stderr line that never ends', () => {
  it('is recorded in pieces during the session, redacted, and never delays an answer', async () => {
    const file = join(dir, 'trace.jsonl');
    const child = spawn(
      process.execPath,
      [
        TAPEDECK_BIN,
        'record',
        '--file',
        file,
        '--',
        process.execPath,
        join(FIXTURE_SERVERS, 'endless-stderr.mjs'),
        TOKEN,
      ],
      { env: { ...process.env, TAPEDECK_HOME: join(dir, 'home') }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    // Each request is answered while the stderr line is still open (the fixture never ends it, and writes to it
    // for the first 600 ms): forwarding does not wait for the line. Were answers held behind it, none would come.
    for (let id = 1; id <= 5; id += 1) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
      await waitFor(() => stdout.includes(`"id":${id}`), SESSION_MS, `the answer to ping ${id}`);
    }
    // The line has waited longer than its wait (1 s; the exact cut is partial-lines.test.ts's, on a hand-moved
    // clock): its head reaches the trace while the session still runs.
    await waitFor(
      () => existsSync(file) && /"type":"stderr".*"partial":true/.test(readFileSync(file, 'utf8')),
      SESSION_MS,
      'the head of the stderr line in the trace',
    );
    expect(child.exitCode).toBeNull();
    expect(child.stdin.writableEnded).toBe(false);
    child.stdin.end();
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    // The terminal got every byte as written, the token included.
    expect(stderr).toContain(TOKEN);
    const trace = readFileSync(file, 'utf8');
    expect(trace).not.toContain(TOKEN.slice(0, 12));
    expect(trace).not.toContain(TOKEN.slice(-12));
    const texts = trace
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type?: string; text?: string })
      .filter((line) => line.type === 'stderr')
      .map((line) => line.text!);
    expect(texts.join('')).toContain('paste this key: [REDACTED:github-token]');
  });
});
