/**
 * The mode logic of `tapedeck run` (which mode, which cassette, expiry), adding exchanges to a cassette, and the
 * usage errors of `run` and `verify` — all in-process: nothing here serves stdin or starts a server.
 */
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendToCassette,
  formatAge,
  parseRunMode,
  planRun,
  type RunMode,
  runMode,
  runSettings,
} from '../../src/live/run.js';
import { loadCassette } from '../../src/replay/cassette/load.js';
import { encodeLine } from '../../src/trace/encode.js';
import type { TraceLine } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';
import { call, fakeClient, req, res, traceLines } from '../replay/helpers.js';

const DAY = 86_400_000;
const INTEROP = join(import.meta.dirname, '..', 'fixtures', 'interop');
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

describe('choosing the mode', () => {
  it('names the valid modes and where the bad one came from', () => {
    expect(() => parseRunMode('rewind', 'TAPEDECK_MODE')).toThrow(
      "TAPEDECK_MODE must be one of auto, record, replay, update, passthrough; got 'rewind'",
    );
  });

  it('lets TAPEDECK_MODE and TAPEDECK_CASSETTE win over the flags, and ignores them when empty', () => {
    const env = { TAPEDECK_MODE: 'replay', TAPEDECK_CASSETTE: 'ci.jsonl' };
    expect(runSettings({ mode: 'record', cassette: 'a.jsonl', env })).toEqual({
      mode: 'replay',
      cassette: 'ci.jsonl',
      modeFrom: 'TAPEDECK_MODE=replay',
    });
    expect(runSettings({ mode: undefined, cassette: 'a.jsonl', env: { TAPEDECK_MODE: '' } })).toMatchObject({
      mode: 'auto',
      cassette: 'a.jsonl',
    });
    expect(() => runSettings({ mode: undefined, cassette: undefined, env: {} })).toThrow(
      /run needs a cassette: --cassette FILE \(or TAPEDECK_CASSETTE\)/,
    );
  });

  it('takes the mode from TAPEDECK_MODE, then the project file, then --mode, and says where it came from', () => {
    const project = { path: '/repo/tapedeck.config.json', mode: 'replay' as const };
    expect(runMode({ mode: 'record', env: { TAPEDECK_MODE: 'update' }, project })).toEqual({
      mode: 'update',
      from: 'TAPEDECK_MODE=update',
      source: { kind: 'env' },
    });
    expect(runMode({ mode: 'record', env: {}, project })).toEqual({
      mode: 'replay',
      from: '"mode": "replay" in /repo/tapedeck.config.json',
      source: { kind: 'project', path: '/repo/tapedeck.config.json' },
    });
    expect(runMode({ mode: 'record', env: {}, project: { path: '/repo/tapedeck.config.json' } })).toEqual({
      mode: 'record',
      from: '--mode record',
      source: { kind: 'flag' },
    });
    expect(runMode({ mode: undefined, env: {} })).toEqual({
      mode: 'auto',
      from: '--mode auto',
      source: { kind: 'flag' },
    });
  });

  it('says what runs and why for every mode asked for by name', () => {
    const base = { cassette: 'c.jsonl', exists: true, exchanges: 3 };
    const why = (mode: RunMode, modeFrom: string) => planRun({ ...base, mode, modeFrom }).why;
    expect(why('replay', 'TAPEDECK_MODE=replay')).toBe(
      'replaying c.jsonl: TAPEDECK_MODE=replay (3 exchanges)',
    );
    expect(why('record', '--mode record')).toBe('recording c.jsonl: --mode record');
    expect(why('update', '"mode": "update" in /r/tapedeck.config.json')).toBe(
      'updating c.jsonl: "mode": "update" in /r/tapedeck.config.json (3 exchanges)',
    );
    expect(why('passthrough', '--mode passthrough')).toBe(
      'passing through to the server, recording nothing: --mode passthrough',
    );
  });

  it('auto replays a cassette that exists and records one that does not', () => {
    expect(planRun({ mode: 'auto', cassette: 'c.jsonl', exists: true, exchanges: 12 })).toEqual({
      mode: 'replay',
      why: 'replaying c.jsonl: cassette exists (12 exchanges)',
      note: undefined,
      refuse: undefined,
    });
    expect(planRun({ mode: 'auto', cassette: 'c.jsonl', exists: false })).toEqual({
      mode: 'record',
      why: 'recording c.jsonl: no cassette there yet',
      note: undefined,
      refuse: undefined,
    });
  });

  it('refuses to replay or update a cassette that does not exist, naming the setting that chose the mode', () => {
    const missing = { mode: 'replay' as const, cassette: 'c.jsonl', exists: false };
    expect(planRun(missing).refuse).toBe(
      'no cassette at c.jsonl to replay: record it first (--mode record or --mode auto)',
    );
    // The environment and the project file win over --mode: asking for --mode would change nothing.
    expect(planRun({ ...missing, modeSource: { kind: 'env' } }).refuse).toBe(
      'no cassette at c.jsonl to replay: record it first (TAPEDECK_MODE=record or TAPEDECK_MODE=auto, which wins over --mode and tapedeck.config.json)',
    );
    expect(
      planRun({
        ...missing,
        mode: 'update',
        modeSource: { kind: 'project', path: '/r/tapedeck.config.json' },
      }).refuse,
    ).toBe(
      'no cassette at c.jsonl to update: record it first ("mode": "record" or "auto" in /r/tapedeck.config.json, which wins over --mode)',
    );
  });

  it('names the project file in the warnings about an old cassette when the file set the mode', () => {
    const old = {
      mode: 'replay' as const,
      cassette: 'c.jsonl',
      exists: true,
      maxAgeMs: 30 * DAY,
      now: NOW,
      startedAt: new Date(NOW - 45 * DAY).toISOString(),
      modeSource: { kind: 'project' as const, path: '/r/tapedeck.config.json' },
    };
    expect(planRun(old).note).toBe(
      'warning: c.jsonl was recorded 45 days ago, more than --max-age 30 days; re-record it with "mode": "record" in /r/tapedeck.config.json, which wins over --mode (or --expired error)',
    );
    expect(planRun({ ...old, expired: 'error' }).refuse).toBe(
      'c.jsonl was recorded 45 days ago, more than --max-age 30 days: re-record it ("mode": "record" in /r/tapedeck.config.json, which wins over --mode), or raise --max-age',
    );
    expect(planRun({ ...old, expired: 'record' }).note).toBe(
      'warning: c.jsonl was recorded 45 days ago, more than --max-age 30 days; not re-recorded in replay mode (--expired record applies to mode auto: "mode": "auto" in /r/tapedeck.config.json, which wins over --mode)',
    );
  });

  it('warns about, refuses, or re-records a cassette older than --max-age', () => {
    const old = { mode: 'auto' as const, cassette: 'c.jsonl', exists: true, maxAgeMs: 30 * DAY, now: NOW };
    const startedAt = new Date(NOW - 45 * DAY).toISOString();
    expect(planRun({ ...old, startedAt })).toEqual({
      mode: 'replay',
      why: 'replaying c.jsonl: cassette exists',
      note: 'warning: c.jsonl was recorded 45 days ago, more than --max-age 30 days; re-record it with --mode record (or --expired record / error)',
      refuse: undefined,
    });
    expect(planRun({ ...old, startedAt, expired: 'error' }).refuse).toBe(
      'c.jsonl was recorded 45 days ago, more than --max-age 30 days: re-record it (--mode record, or --expired record), or raise --max-age',
    );
    expect(planRun({ ...old, startedAt, expired: 'record' })).toEqual({
      mode: 'record',
      why: 'recording c.jsonl again: it was recorded 45 days ago, more than --max-age 30 days',
      note: undefined,
      refuse: undefined,
    });
    // A replay asked for by name (CI) never turns into a recording: it warns and serves the cassette.
    for (const mode of ['replay', 'update'] as const) {
      expect(planRun({ ...old, mode, startedAt, expired: 'record' })).toEqual({
        mode,
        why: `${mode === 'replay' ? 'replaying' : 'updating'} c.jsonl: --mode ${mode}`,
        note: `warning: c.jsonl was recorded 45 days ago, more than --max-age 30 days; not re-recorded in ${mode} mode (--expired record applies to mode auto: --mode auto)`,
        refuse: undefined,
      });
    }
    expect(planRun({ ...old, startedAt: new Date(NOW - DAY).toISOString(), expired: 'error' })).toEqual({
      mode: 'replay',
      why: 'replaying c.jsonl: cassette exists',
      note: undefined,
      refuse: undefined,
    });
  });

  it('does not age-check what it records or passes through', () => {
    const input = { cassette: 'c.jsonl', exists: true, maxAgeMs: 1, startedAt: '2000-01-01T00:00:00.000Z' };
    expect(planRun({ ...input, mode: 'record', expired: 'error' }).refuse).toBeUndefined();
    expect(planRun({ ...input, mode: 'passthrough', expired: 'error' }).refuse).toBeUndefined();
  });

  it('says ages in their largest unit that says them well', () => {
    expect(
      [45 * DAY + 3_600_000, 3_600_000, 5_400_000, 61_000, 120_000, 20].map((ms) => formatAge(ms)),
    ).toEqual(['45 days', '1 hour', '90 minutes', '61 seconds', '2 minutes', '20 ms']);
  });
});

describe('adding exchanges to a cassette', () => {
  const io = useCliHarness('tapedeck-run-append-');

  function writeCassette(path: string, lines: TraceLine[]): void {
    const end: TraceLine = {
      t: '2026-01-01T00:00:01.000Z',
      type: 'end',
      durationMs: 1000,
      reason: 'process_exit',
      counts: { in: 1, out: 1 },
      exitCode: 0,
    };
    writeFileSync(path, [...lines, end].map(encodeLine).join(''));
  }

  it('keeps the recording, appends the new lines with their own conn, and a replay then serves them', async () => {
    const path = join(io.dir, 'c.jsonl');
    writeCassette(
      path,
      traceLines([
        ['in', req(1, 'tools/call', call('add', { a: 2, b: 3 }))],
        ['out', res(1, { content: [{ type: 'text', text: '5' }] })],
      ]),
    );
    const t = new Date().toISOString();
    await appendToCassette(
      path,
      [
        { t, dir: 'in', raw: req(1, 'tools/call', call('add', { a: 5, b: 5 })) },
        { t, dir: 'out', raw: res(1, { content: [{ type: 'text', text: '10' }] }) },
      ],
      { conn: 'update-1' },
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type ?? line.dir)).toEqual(['meta', 'in', 'out', 'in', 'out', 'end']);
    expect(lines.slice(1, 5).map((line) => [line.seq, line.conn])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, 'update-1'],
      [4, 'update-1'],
    ]);
    expect(lines[5]).toMatchObject({
      type: 'end',
      reason: 'process_exit',
      counts: { in: 2, out: 2 },
      exitCode: 0,
    });

    // The same id (1) on both: a fresh client numbers from where the recorded one did.
    const { cassette } = await loadCassette(path);
    expect(cassette.exchanges.map((x) => x.response?.result)).toEqual([
      { content: [{ type: 'text', text: '5' }] },
      { content: [{ type: 'text', text: '10' }] },
    ]);
    const client = fakeClient(cassette);
    const answer = await client.request(9, 'tools/call', call('add', { a: 5, b: 5 }));
    expect(answer.result).toEqual({ content: [{ type: 'text', text: '10' }] });
  });

  it('merges a rotated cassette into one file and removes the old segments', async () => {
    const path = join(io.dir, 'rotated.jsonl');
    const older = join(io.dir, 'rotated.1.jsonl');
    const traceId = '11111111-2222-4333-8444-555555555555';
    const [meta0, ...first] = traceLines([
      ['in', req(1, 'tools/call', call('add', { a: 1, b: 1 }))],
      ['out', res(1, { content: [{ type: 'text', text: '2' }] })],
    ]);
    writeFileSync(older, [{ ...meta0!, traceId, segment: 0 }, ...first].map(encodeLine).join(''));
    const [meta1, ...second] = traceLines([
      ['in', req(2, 'tools/call', call('add', { a: 2, b: 2 }))],
      ['out', res(2, { content: [{ type: 'text', text: '4' }] })],
    ]);
    const renumbered = second.map((line, i) => ({ ...line, seq: 3 + i }));
    writeCassette(path, [{ ...meta1!, traceId, segment: 1 }, ...renumbered]);
    expect((await loadCassette(path)).cassette.exchanges).toHaveLength(2);

    const t = new Date().toISOString();
    await appendToCassette(path, [
      { t, dir: 'in', raw: req(3, 'tools/call', call('add', { a: 3, b: 3 })) },
      { t, dir: 'out', raw: res(3, { content: [{ type: 'text', text: '6' }] }) },
    ]);
    expect(() => statSync(older)).toThrow(/ENOENT/);
    const { cassette } = await loadCassette(path);
    expect(cassette.exchanges.map((x) => x.response?.result)).toEqual([
      { content: [{ type: 'text', text: '2' }] },
      { content: [{ type: 'text', text: '4' }] },
      { content: [{ type: 'text', text: '6' }] },
    ]);
    const metaLine = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!);
    expect(metaLine.traceId).not.toBe(traceId);
    expect(metaLine.segment).toBe(0);
  });

  it('redacts the new lines as record would', async () => {
    const path = join(io.dir, 'c.jsonl');
    writeCassette(
      path,
      traceLines([
        ['in', req(1, 'ping')],
        ['out', res(1, {})],
      ]),
    );
    await appendToCassette(
      path,
      [{ t: new Date().toISOString(), dir: 'out', raw: res(2, { token: 'secret' }) }],
      { redact: (line) => JSON.parse(JSON.stringify(line).replace('secret', '[REDACTED:x]')) },
    );
    expect(readFileSync(path, 'utf8')).toContain('"token":"[REDACTED:x]"');
  });
});

describe('tapedeck run and verify: usage', () => {
  const io = useCliHarness('tapedeck-run-cli-');
  const oneLine = () => io.stderr.split('\n').filter((line) => line !== '');

  it.each([
    [['--mode', 'rewind'], "--mode must be one of auto, record, replay, update, passthrough; got 'rewind'"],
    [
      ['--max-age', 'soon'],
      "--max-age must be a duration such as 30d, 12h, 90m, 45s, 2w or 500ms (units ms, s, m, h, d, w); got 'soon'",
    ],
    [['--expired', 'ignore'], "--expired must be one of warn, error, record; got 'ignore'"],
    [['--match', 'fuzzy'], "--match must be keyed or ordered; got 'fuzzy'"],
    [['--ignore', '$.params[oops'], "--ignore '$.params[oops'"],
  ])('run %j is a usage error (exit 2) in one line', async (flags, message) => {
    expect(await io.run(['run', '--cassette', join(io.dir, 'c.jsonl'), ...flags, '--', 'node', 's.js'])).toBe(
      2,
    );
    expect(oneLine()).toHaveLength(1);
    expect(io.stderr).toContain(message);
  });

  it('run names TAPEDECK_MODE when it holds a bad mode', async () => {
    io.env.TAPEDECK_MODE = 'rewind';
    expect(await io.run(['run', '--cassette', 'c.jsonl', '--', 'node', 's.js'])).toBe(2);
    expect(io.stderr).toBe(
      "tapedeck: TAPEDECK_MODE must be one of auto, record, replay, update, passthrough; got 'rewind'\n",
    );
  });

  it('run without a server command is a usage error', async () => {
    expect(await io.run(['run', '--cassette', 'c.jsonl'])).toBe(2);
    expect(io.stderr).toMatch(/^tapedeck: run needs a server command \(mode auto\)/);
  });

  it('run --mode replay of a missing cassette fails in one line, exit 1', async () => {
    const path = join(io.dir, 'missing.jsonl');
    expect(await io.run(['run', '--cassette', path, '--mode', 'replay'])).toBe(1);
    expect(io.stderr).toBe(
      `tapedeck: no cassette at ${path} to replay: record it first (--mode record or --mode auto)\n`,
    );
  });

  it('run --expired error stops before serving an old cassette, exit 1', async () => {
    const path = join(io.dir, 'old.jsonl');
    const lines = traceLines([
      ['in', req(1, 'ping')],
      ['out', res(1, {})],
    ]);
    (lines[0] as { startedAt: string }).startedAt = '2020-01-01T00:00:00.000Z';
    lines.push({ t: '2020-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 });
    writeFileSync(path, lines.map(encodeLine).join(''));
    expect(
      await io.run([
        'run',
        '--cassette',
        path,
        '--max-age',
        '30d',
        '--expired',
        'error',
        '--',
        'node',
        's.js',
      ]),
    ).toBe(1);
    expect(oneLine()).toEqual([
      expect.stringMatching(
        /^tapedeck: .*old\.jsonl was recorded \d+ days ago, more than --max-age 30 days: re-record it \(--mode record, or --expired record\), or raise --max-age$/,
      ),
    ]);
  });

  it("an unknown option is one line, with commander's suggestion on it", async () => {
    expect(await io.run(['run', '--cassette', 'c.jsonl', '--servr', 'x', '--', 'node', 's.js'])).toBe(2);
    expect(oneLine()).toEqual([
      "tapedeck: unknown option '--servr' (Did you mean --server?) (see tapedeck --help)",
    ]);
  });

  it.each([
    [['run', '--mode', 'update'], 'run --mode update'],
    [['verify', '--update'], 'verify --update'],
  ])(
    '%j refuses a cassette of another tool, which it would rewrite as tapedeck JSONL',
    async (words, what) => {
      const path = join(io.dir, 'session.ndjson');
      copyFileSync(join(INTEROP, 'mcporter', 'everything-get-sum.ndjson'), path);
      const before = readFileSync(path);
      const [command, ...flags] = words as [string, ...string[]];
      const args = command === 'run' ? ['run', '--cassette', path, ...flags] : ['verify', path, ...flags];
      expect(await io.run([...args, '--', 'node', 's.js'])).toBe(1);
      expect(oneLine()).toEqual([
        `tapedeck: ${what} rewrites the cassette as tapedeck JSONL, and ${path} is a mcporter file: convert it first (tapedeck convert ${path} --to tapedeck -o ${join(io.dir, 'session.jsonl')}) and use that`,
      ]);
      expect(readFileSync(path)).toEqual(before);
    },
  );

  it('run --server picks one server of a multi-server cassette', async () => {
    const path = join(io.dir, 'two.ndjson');
    const one = readFileSync(join(INTEROP, 'mcporter', 'everything-get-sum.ndjson'), 'utf8');
    writeFileSync(path, one + one.replaceAll('"server":"everything"', '"server":"other"'));
    expect(await io.run(['run', '--cassette', path, '--mode', 'replay'])).toBe(2);
    expect(oneLine()).toEqual([
      expect.stringContaining('the cassette holds 2 servers ("everything", "other"): choose one'),
    ]);
    expect(await io.run(['run', '--cassette', path, '--mode', 'replay', '--server', 'nope'])).toBe(2);
    expect(io.stderr).toContain('no server "nope" in the cassette; it holds "everything", "other"');
  });

  it('verify without a server command is a usage error', async () => {
    expect(await io.run(['verify', 'c.jsonl', '--timeout', '5s'])).toBe(2);
    expect(io.stderr).toBe(
      'tapedeck: verify needs a server command after the cassette, or --upstream URL, e.g. tapedeck verify session.jsonl node server.js\n',
    );
  });

  it.each([
    [
      ['--timeout', '0'],
      "--timeout must be a duration such as 5s, 1.5m or 500ms, or a whole number of milliseconds; got '0'",
    ],
    [['--ignore', '$.result[oops'], "--ignore '$.result[oops'"],
  ])('verify %j is a usage error before the cassette is read', async (flags, message) => {
    expect(await io.run(['verify', '/nonexistent.jsonl', ...flags, '--', 'node', 's.js'])).toBe(2);
    expect(oneLine()).toHaveLength(1);
    expect(io.stderr).toContain(message);
  });

  it('verify of a missing cassette fails in one line, exit 1', async () => {
    expect(await io.run(['verify', '/nonexistent/c.jsonl', '--', 'node', 's.js'])).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: no such cassette: \/nonexistent\/c\.jsonl/);
  });
});
