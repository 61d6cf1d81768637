/**
 * `show --errors` lists the failing calls only — each request with its answer, one error per call however many red
 * rows it has — and ends with the ids of the calls that failed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIo } from '../helpers/cli.js';

const SESSION = join(import.meta.dirname, '..', 'fixtures', 'viewer', 'everything-stdio.jsonl');

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = memoryIo({ env: { NO_COLOR: '1', COLUMNS: '120' } });
  const code = await run(args, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('show --errors', () => {
  it('prints each failing call (request and answer) and ends with failed: #ids', async () => {
    const { code, stdout, stderr } = await cli(['show', '--errors', SESSION]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = stdout.trimEnd().split('\n');
    const ids = rows.at(-1)!.slice('failed: '.length).split(' ');
    expect(ids).toEqual(['#37', '#38']);
    // Two rows per failed call: the request and its answer, marked failed.
    const requests = rows.filter((row) => row.includes('→ '));
    const answers = rows.filter((row) => row.includes('← '));
    expect(requests.map((row) => /→ (\S+ \S+)/.exec(row)![1])).toEqual([
      'tools/call no-such-tool',
      'resources/read demo://resource/static/document/nope.md',
    ]);
    expect(answers).toHaveLength(2);
    for (const [i, answer] of answers.entries()) {
      expect(answer).toContain(`${ids[i]} ✗`);
      expect(requests[i]).toContain(ids[i]);
    }
    // Nothing that did not fail: no echo call, no notification.
    expect(stdout).not.toContain('notifications/');
    expect(stdout).not.toMatch(/tools\/call echo/);
  });

  it('shows the same failures the whole timeline marks', async () => {
    const whole = await cli(['show', SESSION]);
    const only = await cli(['show', '--errors', SESSION]);
    for (const row of only.stdout.split('\n').slice(1, -2)) expect(whole.stdout).toContain(row);
  });

  it('does not go with --raw', async () => {
    const { code, stderr } = await cli(['show', '--errors', '--raw', SESSION]);
    expect(code).toBe(2);
    expect(stderr).toContain('--errors lists the failing calls as a timeline; it does not go with --raw');
  });
});
