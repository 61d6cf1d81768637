import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/trace/io.js';
import { useCliHarness } from '../helpers/cli.js';

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/interop/${path}`, import.meta.url));
const MCPORTER = fixture('mcporter/everything-get-sum.ndjson');

const io = useCliHarness('tapedeck-convert-', { isolateHome: false });

const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describe('tapedeck convert', () => {
  it('converts mcporter NDJSON to a tapedeck trace file, 0600 in new 0700 folders', async () => {
    const out = join(io.dir, 'new', 'deeper', 'trace.jsonl');
    expect(await io.run(['convert', MCPORTER, '--to', 'tapedeck', '-o', out])).toBe(0);
    expect(io.stderr).toBe('');
    expect(io.stdout).toBe('');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(statSync(join(io.dir, 'new')).mode & 0o777).toBe(0o700);
    expect(statSync(join(io.dir, 'new', 'deeper')).mode & 0o777).toBe(0o700);
    const lines = records(readFileSync(out, 'utf8'));
    expect(lines[0]).toMatchObject({
      v: 1,
      type: 'meta',
      label: 'everything',
      producer: { name: 'tapedeck' },
    });
    expect(lines[1]).toMatchObject({ seq: 1, type: 'event', name: 'connect' });
    expect(lines.at(-1)).toMatchObject({ type: 'end', reason: 'imported' });
  });

  it('round-trips mcporter → tapedeck → mcporter back to the original records', async () => {
    const jsonl = join(io.dir, 'a.jsonl');
    const ndjson = join(io.dir, 'b.ndjson');
    expect(await io.run(['convert', MCPORTER, '--to', 'tapedeck', '-o', jsonl])).toBe(0);
    expect(await io.run(['convert', jsonl, '--to', 'mcporter', '-o', ndjson])).toBe(0);
    expect(records(readFileSync(ndjson, 'utf8'))).toEqual(records(readFileSync(MCPORTER, 'utf8')));
  });

  it('turns an mcp-tape trace into a tapedeck one: seq added, producer set, lines otherwise unchanged', async () => {
    const input = fixture('mcp-tape/everything-stdio.jsonl');
    const out = join(io.dir, 'tape.jsonl');
    expect(await io.run(['convert', input, '--to', 'tapedeck', '-o', out])).toBe(0);
    const before = records(readFileSync(input, 'utf8'));
    const after = records(readFileSync(out, 'utf8'));
    expect(after).toHaveLength(before.length);
    // The meta also says the export was redacted, and by which rules.
    expect(after[0]).toEqual({
      ...before[0],
      producer: { name: 'tapedeck', version: expect.any(String) },
      redaction: { defaults: true, customRules: 0, mode: 'marker' },
    });
    expect(after[1]).toEqual({ ...before[1], seq: 1 });
    expect(after.at(-1)).toEqual(before.at(-1));
    expect((await openTrace(out)).format).toBe('tapedeck');
  });

  it('hides credentials another tool kept in the clear, in every format it writes', async () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const input = join(io.dir, 'leaky.ndjson');
    writeFileSync(
      input,
      [
        {
          _meta: { dir: 'send', server: 'gh', ts: '2026-11-01T10:00:00.000Z' },
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'login', arguments: { password: 'hunter2-Correct', token } },
        },
        {
          _meta: { dir: 'recv', server: 'gh', ts: '2026-11-01T10:00:00.010Z' },
          jsonrpc: '2.0',
          id: 1,
          result: { content: [{ type: 'text', text: `Authorization: Bearer ${token}` }] },
        },
      ]
        .map((record) => JSON.stringify(record))
        .join('\n'),
    );
    for (const to of ['tapedeck', 'mcp-tape', 'mcporter']) {
      const out = join(io.dir, `leaky.${to}`);
      expect(await io.run(['convert', input, '--to', to, '-o', out])).toBe(0);
      const written = readFileSync(out, 'utf8');
      expect(written).not.toContain(token);
      expect(written).not.toContain('hunter2-Correct');
      expect(written).toContain('[REDACTED:');
    }
  });

  it('round-trips mcp-tape → tapedeck → mcp-tape back to the original lines', async () => {
    const input = fixture('mcp-tape/everything-stdio.jsonl');
    const jsonl = join(io.dir, 'tape.jsonl');
    const back = join(io.dir, 'back.jsonl');
    expect(await io.run(['convert', input, '--to', 'tapedeck', '-o', jsonl])).toBe(0);
    expect(await io.run(['convert', jsonl, '--to', 'mcp-tape', '-o', back])).toBe(0);
    expect(records(readFileSync(back, 'utf8'))).toEqual(records(readFileSync(input, 'utf8')));
    expect((await openTrace(back)).format).toBe('mcp-tape');
  });

  it('leaves out of mcp-tape what it has no place for, and says so', async () => {
    const input = join(io.dir, 'full.jsonl');
    const t = '2026-01-01T00:00:00.000Z';
    writeFileSync(
      input,
      [
        {
          v: 1,
          type: 'meta',
          startedAt: t,
          label: 'x',
          producer: { name: 'tapedeck', version: '1' },
          traceId: 'a',
        },
        { t, seq: 1, type: 'stderr', text: 'listening' },
        { t, seq: 2, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' }, server: 's' },
        { t, type: 'end', durationMs: 1, reason: 'process_exit', exitCode: 0, counts: { in: 1 } },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
    );
    expect(await io.run(['convert', input, '--to', 'mcp-tape'])).toBe(0);
    expect(records(io.stdout)).toEqual([
      { v: 1, type: 'meta', startedAt: t, label: 'x' },
      { t, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      { t, type: 'end', exitCode: 0, durationMs: 1 },
    ]);
    expect(io.stderr).toBe('tapedeck: warning: 1 line left out: stderr lines have no mcp-tape equivalent\n');
  });

  it('writes to stdout without -o', async () => {
    expect(await io.run(['convert', fixture('shack/my_session.json'), '--to', 'mcporter'])).toBe(0);
    const lines = records(io.stdout);
    expect(lines.map((l) => [l._meta.dir, l.method ?? l.id])).toEqual([
      ['lifecycle', '$transport/start'],
      ['send', 'tools/call'],
      ['recv', 1],
      ['send', 'tools/call'],
      ['recv', 2],
      ['lifecycle', '$transport/close'],
    ]);
  });

  it('--server names the server an mcporter file is written for (mcporter replays by its config name)', async () => {
    const input = fixture('mcp-tape/everything-stdio.jsonl');
    expect(await io.run(['convert', input, '--to', 'mcporter', '--server', 'everything'])).toBe(0);
    const servers = new Set(records(io.stdout).map((l) => l._meta.server));
    expect([...servers]).toEqual(['everything']);
  });

  it('refuses --server for a format that names no server, and an empty one, before reading', async () => {
    expect(await io.run(['convert', MCPORTER, '--to', 'har', '--server', 'x'])).toBe(2);
    expect(io.stderr).toBe('tapedeck: --server names the server of an mcporter file; --to har takes none\n');
    io.stderr = '';
    expect(await io.run(['convert', MCPORTER, '--to', 'mcporter', '--server', ' '])).toBe(2);
    expect(io.stderr).toMatch(/^tapedeck: --server needs a name/);
  });

  it('replaces an existing output file, even when it is the input', async () => {
    const path = join(io.dir, 'same.ndjson');
    writeFileSync(path, readFileSync(MCPORTER), { mode: 0o644 });
    expect(await io.run(['convert', path, '--to', 'tapedeck', '-o', path])).toBe(0);
    expect(records(readFileSync(path, 'utf8'))[0]).toMatchObject({ type: 'meta' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('reports input problems on stderr, converts the rest, and exits 1 for the skipped corrupt line', async () => {
    const input = join(io.dir, 'broken.jsonl');
    const meta = JSON.stringify({ v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'x' });
    const msg = JSON.stringify({
      t: '2026-01-01T00:00:00.000Z',
      dir: 'in',
      raw: { jsonrpc: '2.0', method: 'ping', id: 1 },
    });
    const stderrLine = JSON.stringify({ t: '2026-01-01T00:00:00.000Z', type: 'stderr', text: 'boo' });
    writeFileSync(input, `${meta}\n${msg}\n{oops\n${stderrLine}\n`);
    expect(await io.run(['convert', input, '--to', 'mcporter', '-o', join(io.dir, 'o.ndjson')])).toBe(1);
    expect(readFileSync(join(io.dir, 'o.ndjson'), 'utf8')).toContain('"method":"ping"');
    expect(io.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^tapedeck: error: .*broken\.jsonl:3: not valid JSON \(/),
      expect.stringMatching(/^tapedeck: warning: .*broken\.jsonl: no end line/),
      'tapedeck: warning: 1 line left out: stderr lines have no mcporter equivalent',
    ]);
    expect(
      await io.run(['convert', input, '--to', 'mcporter', '--strict', '-o', join(io.dir, 'p.ndjson')]),
    ).toBe(1);
    expect(io.stderr).toMatch(/tapedeck: .*broken\.jsonl:3: not valid JSON/);
  });

  it('fails with exit 1 and one line for a file that does not exist', async () => {
    const missing = join(io.dir, 'missing.jsonl');
    expect(await io.run(['convert', missing, '--to', 'tapedeck'])).toBe(1);
    expect(io.stderr).toBe(`tapedeck: no such trace file: ${missing}\n`);
  });

  it('fails with exit 1 for a directory', async () => {
    mkdirSync(join(io.dir, 'folder'));
    expect(await io.run(['convert', join(io.dir, 'folder'), '--to', 'tapedeck'])).toBe(1);
    expect(io.stderr).toBe(
      `tapedeck: ${join(io.dir, 'folder')} is a directory: expected a trace file (.jsonl, .ndjson or .json)\n`,
    );
  });

  it('fails with exit 1 for a file in no known format', async () => {
    writeFileSync(join(io.dir, 'notes.txt'), 'just text\n');
    expect(await io.run(['convert', join(io.dir, 'notes.txt'), '--to', 'tapedeck'])).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: .*notes\.txt is in no format tapedeck reads: expected .*\n$/);
  });

  it('fails with a usage error (exit 2) naming a bad --to and the valid ones, before reading anything', async () => {
    expect(await io.run(['convert', join(io.dir, 'missing.jsonl'), '--to', 'pcap'])).toBe(2);
    expect(io.stderr).toBe("tapedeck: --to must be one of tapedeck, mcp-tape, mcporter, har; got 'pcap'\n");
  });

  it('fails with a usage error when --to is missing', async () => {
    expect(await io.run(['convert', MCPORTER])).toBe(2);
    expect(io.stderr).toMatch(/--to <format>/);
  });

  it('fails with exit 1 and one line when the output folder cannot be created', async () => {
    writeFileSync(join(io.dir, 'file'), 'x');
    expect(
      await io.run(['convert', MCPORTER, '--to', 'tapedeck', '-o', join(io.dir, 'file', 'out.jsonl')]),
    ).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: cannot create folder .*file: [^\n]+\n$/);
  });

  it('leaves no temporary file behind when the output cannot be put in place', async () => {
    mkdirSync(join(io.dir, 'taken'));
    expect(await io.run(['convert', MCPORTER, '--to', 'tapedeck', '-o', join(io.dir, 'taken')])).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: .*taken/);
    expect(readdirSync(io.dir).sort()).toEqual(['taken']);
  });
});
