import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guessedParent, guessTitle, isGuess } from '../../../viewer/src/data/guess.js';
import { REPO_ROOT } from '../../helpers/peers.js';
import { openModel, text } from '../open-model.js';

const STDIO = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-stdio.jsonl');

describe('ties pairing guessed', () => {
  it('tells a guess from a tie read off the wire', () => {
    expect(isGuess('open-request')).toBe(true);
    for (const via of ['progressToken', 'subscriptionId', 'requestId', 'stream'] as const)
      expect(isGuess(via)).toBe(false);
    expect(isGuess(undefined)).toBe(false);
  });

  it('finds the guessed parent of the roots/list and log line a real stdio session sent during a long call', async () => {
    const model = await openModel({ 'v/everything-stdio.jsonl': text(STDIO) });
    const rows = model.rows();
    const guessed = rows.filter((r) => guessedParent(r) !== undefined);
    const names = guessed.map((r) => `${r.kind} ${r.exchange?.method ?? r.notification?.method}`);
    // The server's roots/list (and the client's answer to it) and the log line it sent after: guesses.
    expect(names.slice(0, 3)).toEqual([
      'request roots/list',
      'response roots/list',
      'notification notifications/message',
    ]);
    const parent = guessedParent(guessed[0]!)!;
    expect(parent.method).toBe('tools/call');
    expect(guessTitle(parent)).toBe(
      'maybe part of tools/call #2: the request open when it was sent (nothing on the wire ties it)',
    );
    // Progress notifications carry the call's progress token: their place is certain.
    const progress = rows.filter((r) => r.notification?.method === 'notifications/progress');
    expect(progress).toHaveLength(4);
    for (const row of progress) {
      expect(row.parent).toBe(parent);
      expect(guessedParent(row)).toBeUndefined();
    }
    // Top-level rows and client requests have no parent to guess.
    expect(guessedParent(rows.find((r) => r.exchange?.method === 'initialize')!)).toBeUndefined();
  });
});
