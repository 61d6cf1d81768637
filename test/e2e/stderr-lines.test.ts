/**
 * A stderr line that never ends, through the real recorder: it is recorded in bounded pieces while the session runs
 * (redacted, a token never split), and the client's answers are not held back by it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVERS, makeTempDir, removeTempDir, TAPEDECK_BIN } from '../helpers/proxy.js';

const TOKEN = `ghp_${'Tn4Xw8Qz2Lp6Rv0Ks3Jm'}${'9Bd5Hc1Fg7Ye2Ua4'}`;
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
    // Each request is answered promptly while the stderr line keeps growing.
    for (let id = 1; id <= 5; id += 1) {
      const asked = Date.now();
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
      while (!stdout.includes(`"id":${id}`)) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(Date.now() - asked).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The line has been waiting over a second: its head is already in the trace, before the session ends.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const during = readFileSync(file, 'utf8');
    expect(during).toContain('"type":"stderr"');
    expect(during).toContain('"partial":true');
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
