/**
 * A report embeds every message of a trace up to a limit: past it the report is refused in one line naming what
 * works instead, and `--max-messages N` embeds the first N with an event line marking the cut.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_DEFAULTS, writeReport } from '../../src/cli/commands/report.js';
import { encodeLine } from '../../src/trace/encode.js';
import { memoryIo, useCliHarness } from '../helpers/cli.js';
import { call, note, req, res, traceLines } from '../replay/helpers.js';

const io = useCliHarness('tapedeck-report-limit-', { env: { COLUMNS: '120', NO_COLOR: '1' } });

/** A trace of five echo calls (ten messages) and its end line. */
function trace(): string {
  const steps: Parameters<typeof traceLines>[0] = [['in', note('notifications/initialized')]];
  for (let id = 1; id <= 5; id++) {
    steps.push(['in', req(id, 'tools/call', call('echo', { message: `call ${id}` }))]);
    steps.push(['out', res(id, { content: [{ type: 'text', text: `Echo: call ${id}` }] })]);
  }
  const lines = traceLines(steps);
  lines.push({ t: '2026-01-01T00:00:09.000Z', type: 'end', durationMs: 9000 });
  return lines.map((line) => encodeLine(line as never)).join('');
}

/** The trace written to the test's folder. */
function written(name: string): string {
  const path = join(io.dir, name);
  writeFileSync(path, trace());
  return path;
}

/** The trace lines a report embeds, parsed back from its page. */
function embedded(file: string): Record<string, unknown>[] {
  const page = readFileSync(file, 'utf8');
  const text = /<script type="application\/x-tapedeck-trace"[^>]*>([\s\S]*?)<\/script>/.exec(page)![1]!;
  return text
    .replace(/\\u003c/g, '<')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('report of a trace too big to embed', () => {
  it('refuses it in one line that offers view and --max-messages', async () => {
    const path = written('calls.jsonl');
    const out = join(io.dir, 'refused.html');
    const cli = memoryIo({ cwd: io.dir });
    await expect(writeReport([path], { out }, cli, () => {}, { maxMessages: 4 })).rejects.toThrow(
      new RegExp(
        `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds more than 4 messages, too many for one page: ` +
          'open it with `tapedeck view .*` \\(paged\\), or embed the first N with ' +
          '`tapedeck report --max-messages N` \\(the cut is marked\\)$',
      ),
    );
    expect(REPORT_DEFAULTS.maxMessages).toBe(200_000);
  });

  it('embeds the first N messages and marks the cut with an event line', async () => {
    const path = written('calls.jsonl');
    const out = join(io.dir, 'cut.html');
    expect(await io.run(['report', path, '-o', out, '--max-messages', '4'])).toBe(0);
    const lines = embedded(out);
    const messages = lines.filter((line) => line.type === undefined);
    expect(messages).toHaveLength(4);
    expect(lines.at(-1)).toMatchObject({
      type: 'event',
      name: 'truncated',
      reason: 'report --max-messages',
      kept: 4,
      left: 7,
    });
    expect(lines.some((line) => line.type === 'end')).toBe(false);
  });

  it('keeps a trace under the limit whole, end line included', async () => {
    const path = written('calls.jsonl');
    const out = join(io.dir, 'whole.html');
    expect(await io.run(['report', path, '-o', out, '--max-messages', '11'])).toBe(0);
    const lines = embedded(out);
    expect(lines.filter((line) => line.type === undefined)).toHaveLength(11);
    expect(lines.at(-1)).toMatchObject({ type: 'end' });
  });

  it('says what --max-messages takes', async () => {
    expect(await io.run(['report', 'x.jsonl', '-o', 'x.html', '--max-messages', '0'])).toBe(2);
    expect(io.stderr).toContain("--max-messages must be a whole number of at least 1; got '0'");
  });
});
