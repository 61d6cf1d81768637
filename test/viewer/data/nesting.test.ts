/**
 * One nesting rule for the terminal and the web: `tapedeck show` and the viewer's timeline put every message at the same depth, on a real server-everything session over stdio whose
 * roots/list and log line are only guessed into the call they arrived during (not indented) while its progress
 * notifications carry the call's token (indented). test/view/paged.test.ts holds a paged trace's rows, depths
 * included, to the same rows read whole.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/main.js';
import { guessedParent } from '../../../viewer/src/data/guess.js';
import { memoryIo } from '../../helpers/cli.js';
import { REPO_ROOT } from '../../helpers/peers.js';
import { openModel, text } from '../open-model.js';

const STDIO = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-stdio.jsonl');
const MESSAGE_ROWS = ['request', 'response', 'notification'];

/** Each message row of `show`: its method and its depth (two columns per level between the time and the arrow). */
async function shownDepths(): Promise<[string, number][]> {
  const io = memoryIo({ env: { NO_COLOR: '1', COLUMNS: '160' } });
  expect(await run(['show', STDIO], io)).toBe(0);
  const out: [string, number][] = [];
  for (const row of io.stdout.text.split('\n')) {
    const found = /^ *\+\S+( +)[→←] (\S+)/.exec(row);
    if (found) out.push([found[2]!, (found[1]!.length - 2) / 2]);
  }
  return out;
}

describe('one nesting rule for show and the timeline', () => {
  it('puts every message at the same depth in the terminal and in the viewer', async () => {
    const model = await openModel({ 'v/everything-stdio.jsonl': text(STDIO) });
    const rows = model.rows().filter((row) => MESSAGE_ROWS.includes(row.kind));
    const viewer = rows.map((row): [string, number] => [
      row.exchange?.method ?? row.notification?.method ?? '',
      row.depth,
    ]);
    const shown = await shownDepths();
    expect(shown.length).toBeGreaterThan(20);
    expect(viewer).toEqual(shown);
    // Guessed ties sit beside the call, certain ones under it.
    const roots = rows.find((row) => row.exchange?.method === 'roots/list')!;
    expect(guessedParent(roots)?.method).toBe('tools/call');
    expect(roots.depth).toBe(0);
    const progress = rows.find((row) => row.notification?.method === 'notifications/progress')!;
    expect(progress.depth).toBe(1);
  });
});
