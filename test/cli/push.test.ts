import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { closedPort, json, sampleTrace, TEST_TOKEN, useCollector } from '../collector/helpers.js';
import { useCliHarness } from '../helpers/cli.js';

const LEAKY = [
  '{"v":1,"type":"meta","startedAt":"2026-03-01T10:00:00.000Z","label":"leaky","kind":"mcp"}',
  '{"t":"2026-03-01T10:00:00.010Z","seq":1,"dir":"in","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"note":"use ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"}}}}',
  '{"t":"2026-03-01T10:00:00.020Z","type":"end","durationMs":20,"reason":"process_exit"}',
].join('\n');

describe('tapedeck push', () => {
  const io = useCliHarness('tapedeck-push-');
  const h = useCollector();
  const traces = async () =>
    (await json(h.api('/api/v1/traces'))).traces as { id: string; label: string; format: string }[];

  it('uploads a clean trace and prints a share link that reads it without the token', async () => {
    const file = join(io.dir, 'clean.jsonl');
    writeFileSync(file, sampleTrace({ label: 'clean', calls: 2 }));
    expect(await io.run(['push', file, '--to', h.url, '--token', TEST_TOKEN, '--expires', '2h'])).toBe(0);
    const link = io.stdout.trim();
    expect(link).toMatch(new RegExp(`^${h.url}/#share=[A-Za-z0-9_-]{32}$`));
    expect(io.stderr).toMatch(/pushed .*clean\.jsonl to .* as [A-Za-z0-9_-]{16} \(4 lines\)/);
    const shareId = link.slice(link.indexOf('=') + 1);
    const shared = await json(fetch(`${h.url}/api/v1/shares/${shareId}`));
    expect(shared.trace).toMatchObject({ label: 'clean', lines: 4 });
    expect(Date.parse(shared.share.expiresAt) - Date.parse(shared.share.createdAt)).toBe(7_200_000);
  });

  it('pushes the trace on the run’s stdin (-): the bytes the scan checked are the ones uploaded', async () => {
    const trace = sampleTrace({ label: 'piped', calls: 2 });
    const argv = ['push', '-', '--to', h.url, '--token', TEST_TOKEN];
    expect(await io.run(argv, Readable.from([Buffer.from(trace)]))).toBe(0);
    expect(io.stdout.trim()).toMatch(new RegExp(`^${h.url}/#share=[A-Za-z0-9_-]{32}$`));
    expect((await traces())[0]).toMatchObject({ label: 'piped', format: 'tapedeck', lines: 4 });
  });

  it('sends any importable format as tapedeck JSONL and records the format it came in', async () => {
    const file = join(
      import.meta.dirname,
      '..',
      'fixtures',
      'interop',
      'mcporter',
      'everything-get-sum.ndjson',
    );
    expect(
      await io.run(['push', file, '--to', h.url, '--token', TEST_TOKEN, '--label', 'from mcporter']),
    ).toBe(0);
    expect((await traces())[0]).toMatchObject({ label: 'from mcporter', format: 'mcporter', lines: 10 });
  });

  it('refuses a trace with a line it could not check, uploads nothing', async () => {
    const file = join(io.dir, 'corrupt.jsonl');
    writeFileSync(file, `${sampleTrace({ label: 'corrupt', calls: 1 })}{"t":oops\n`);
    expect(await io.run(['push', file, '--to', h.url, '--token', TEST_TOKEN])).toBe(1);
    expect(io.stderr).toMatch(
      /tapedeck: push refused: 1 line of .*corrupt\.jsonl could not be read, so could not be checked for secrets; .*--force/,
    );
    expect(await traces()).toEqual([]);
  });

  it('refuses a trace the scan flags, uploads nothing, and pushes it with --force', async () => {
    const file = join(io.dir, 'leaky.jsonl');
    writeFileSync(file, LEAKY);
    expect(await io.run(['push', file, '--to', h.url, '--token', TEST_TOKEN])).toBe(1);
    expect(io.stderr).toContain('github-token');
    expect(io.stderr).toMatch(
      /tapedeck: push refused: 1 finding in .*leaky\.jsonl looks like a secret; .*--force/,
    );
    expect(io.stdout).toBe('');
    expect(await traces()).toEqual([]);
    expect(await io.run(['push', file, '--to', h.url, '--token', TEST_TOKEN, '--force', '--json'])).toBe(0);
    const result = JSON.parse(io.stdout);
    expect(result).toMatchObject({ lines: 1, share: { url: expect.stringContaining('#share=') } });
    expect((await traces()).map((t) => t.label)).toEqual(['leaky']);
  });

  it('uses the token in TAPEDECK_HOME, and says plainly when there is none or the collector is away', async () => {
    const file = join(io.dir, 'clean.jsonl');
    writeFileSync(file, sampleTrace());
    expect(await io.run(['push', file, '--to', h.url])).toBe(2);
    expect(io.stderr).toMatch(
      /^tapedeck: no collector token: give --token or set TAPEDECK_TOKEN, or run tapedeck serve once/,
    );
    io.stderr = '';
    const away = `http://127.0.0.1:${await closedPort()}`;
    expect(await io.run(['push', file, '--to', away, '--token', TEST_TOKEN])).toBe(1);
    expect(io.stderr).toBe(
      `tapedeck: cannot reach the collector at ${away} (ECONNREFUSED); is it running? (tapedeck serve)\n`,
    );
    io.stderr = '';
    expect(await io.run(['push', file, '--to', h.url, '--token', 'cd'.repeat(32)])).toBe(1);
    expect(io.stderr).toContain('answered 401: the token is wrong');
    mkdirSync(join(io.dir, 'home'), { recursive: true });
    writeFileSync(join(io.dir, 'home', 'token'), `${TEST_TOKEN}\n`);
    expect(await io.run(['push', file, '--to', h.url])).toBe(0);
    expect(io.stdout).toContain('#share=');
  });
});

describe('CLI bad input for serve and push', () => {
  const io = useCliHarness('tapedeck-serve-');

  it.each([
    [['serve', '--port', 'eighty'], "--port must be a port number from 0 to 65535; got 'eighty'"],
    [['serve', '--port', '70000'], '--port must be a port number'],
    [
      ['serve', '--retain', '3 weeks'],
      "--retain must be a duration such as 30d, 12h or 90m, or off; got '3 weeks'",
    ],
    [['serve', '--max-bytes', 'lots'], '--max-bytes must be a positive size'],
    [['serve', '--host', 'a b'], "--host must be a host name or IP address such as 127.0.0.1; got 'a b'"],
    [['serve', '--allow-host', 'example.test'], '--allow-host only applies with a non-loopback --host'],
    [
      ['push', 'x.jsonl', '--to', 'ftp://host'],
      "--to must be the collector's URL such as http://127.0.0.1:7420",
    ],
    [
      ['push', 'x.jsonl', '--expires', 'soon'],
      "--expires must be a duration such as 7d or 12h, at most 365d; got 'soon'",
    ],
    // Refused before anything is uploaded, not by the collector after the upload.
    [
      ['push', 'x.jsonl', '--expires', '400d'],
      "--expires must be a duration such as 7d or 12h, at most 365d; got '400d'",
    ],
  ])('%j exits 2 with one line', async (argv, message) => {
    expect(await io.run(argv)).toBe(2);
    const lines = io.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });

  it('serve --db naming a folder exits 2', async () => {
    expect(await io.run(['serve', '--db', io.dir])).toBe(2);
    expect(io.stderr).toContain('is a directory; give a database file path');
  });
});
