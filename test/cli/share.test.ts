/**
 * `tapedeck share list` and `share revoke` against a running collector with its write token: a revoked link stops
 * reading the trace at once, arguments are checked before anything is revoked, and a pipe gets one line per share.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shareIdOf } from '../../src/cli/commands/share.js';
import { json, sampleTrace, TEST_TOKEN, useCollector } from '../collector/helpers.js';
import { useCliHarness } from '../helpers/cli.js';

const ID = 'abcdefghijklmnopqrstuvwxyz012345';

describe('tapedeck share', () => {
  const io = useCliHarness('tapedeck-share-', { env: { NO_COLOR: '1' } });
  const h = useCollector();

  /** Pushes a trace and returns the share link push printed. */
  async function pushed(label: string): Promise<string> {
    const file = join(io.dir, `${label}.jsonl`);
    writeFileSync(file, sampleTrace({ label, calls: 1 }));
    expect(await io.run(['push', file, '--to', h.url, '--token', TEST_TOKEN])).toBe(0);
    const link = io.stdout.trim();
    io.stdout = '';
    io.stderr = '';
    return link;
  }
  const status = async (link: string) => (await fetch(`${h.url}/api/v1/shares/${shareIdOf(link)}`)).status;

  it('revokes the link push printed: it stops reading the trace, and the list says so', async () => {
    const kept = await pushed('kept');
    const gone = await pushed('gone');
    expect(await io.run(['share', 'revoke', gone, '--to', h.url, '--token', TEST_TOKEN])).toBe(0);
    expect(io.stderr).toBe(`tapedeck: revoked share ${shareIdOf(gone)}\n`);
    expect([await status(kept), await status(gone)]).toEqual([200, 410]);

    io.stderr = '';
    expect(await io.run(['share', 'list', '--to', h.url, '--token', TEST_TOKEN])).toBe(0);
    // In a pipe: one tab-separated line per share, oldest first.
    const rows = io.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.map((row) => [row[0], row[4]])).toEqual([
      [shareIdOf(kept), 'active'],
      [shareIdOf(gone), 'revoked'],
    ]);
    expect(rows.every((row) => row.length === 5 && /^[A-Za-z0-9_-]{16}$/.test(row[1]!))).toBe(true);
  });

  it('lists the links of one trace, as a table on a terminal, or as JSON', async () => {
    const link = await pushed('one');
    const traceId = ((await json(h.api('/api/v1/shares'))).shares as { traceId: string }[])[0]!.traceId;
    await pushed('other');
    io.tty = true;
    expect(await io.run(['share', 'list', traceId, '--to', h.url, '--token', TEST_TOKEN])).toBe(0);
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^share\s+trace\s+created \(UTC\)\s+expires \(UTC\)\s+state$/);
    expect(io.stdout).toContain(traceId);
    expect(io.stdout).toMatch(/active/);
    io.stdout = '';
    expect(await io.run(['share', 'list', traceId, '--json', '--to', h.url, '--token', TEST_TOKEN])).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual([expect.objectContaining({ id: shareIdOf(link), traceId })]);
  });

  it('checks every argument before revoking anything: a bad one is a usage error in one line', async () => {
    const link = await pushed('safe');
    expect(await io.run(['share', 'revoke', link, 'not-a-link', '--to', h.url, '--token', TEST_TOKEN])).toBe(
      2,
    );
    expect(io.stderr).toBe(
      "tapedeck: 'not-a-link' is neither a share link (…#share=<id>) nor a share id (32 characters A-Z a-z 0-9 _ -)\n",
    );
    expect(await status(link)).toBe(200);
  });

  it('names an unknown share, a refused token and a bad trace id in one line', async () => {
    expect(await io.run(['share', 'revoke', ID, '--to', h.url, '--token', TEST_TOKEN])).toBe(1);
    expect(io.stderr).toBe(`tapedeck: the collector at ${h.url} answered 404: no such share\n`);
    io.stderr = '';
    expect(await io.run(['share', 'list', '--to', h.url, '--token', 'wrong-token'])).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: the collector at .* answered 401: .*\n$/);
    io.stderr = '';
    expect(await io.run(['share', 'list', 'short', '--to', h.url, '--token', TEST_TOKEN])).toBe(2);
    expect(io.stderr).toBe("tapedeck: a trace id is 16 characters A-Z a-z 0-9 _ -; got 'short'\n");
  });

  it('reads a share id from a link, an API path or the id itself', () => {
    expect(shareIdOf(`http://127.0.0.1:7420/#share=${ID}`)).toBe(ID);
    expect(shareIdOf(`http://127.0.0.1:7420/?share=${ID}&x=1`)).toBe(ID);
    expect(shareIdOf(`http://127.0.0.1:7420/api/v1/shares/${ID}/lines`)).toBe(ID);
    expect(shareIdOf(` ${ID} `)).toBe(ID);
    expect(() => shareIdOf('http://127.0.0.1:7420/#share=short')).toThrow(/neither a share link/);
  });
});
