/**
 * `tapedeck view` opens its URL on Windows through cmd.exe's `start`, with the line escaped like a server's: an
 * empty window title, then the URL in quotes, and nothing in the URL read as an operator.
 */
import { describe, expect, it } from 'vitest';
import { browserOpener } from '../../src/cli/commands/view.js';
import { percentPhase, specialPhase } from './cmd-model.js';

describe('the browser opener on Windows', () => {
  it('runs start with an empty title and the URL whole', () => {
    const opener = browserOpener('win32', { ComSpec: 'C:\\Windows\\system32\\cmd.exe' });
    expect(opener?.command).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(opener?.verbatim).toBe(true);
    const url = 'http://127.0.0.1:7431/tok3n/#/timeline?a=1&b=%20c|d';
    const args = opener!.args(url);
    expect(args.slice(0, 5)).toEqual(['/d', '/e:on', '/v:off', '/s', '/c']);
    const read = specialPhase(percentPhase(args[5]!.slice(1, -1), { PATH: 'x', b: 'EXPANDED' }));
    expect(read.operators).toEqual([]);
    expect(read.text).toBe(`start "" "${url}"`);
  });
});
