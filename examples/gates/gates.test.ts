/**
 * Assertions over what was said on the wire: `mcp-tapedeck/vitest` adds `toHaveCalledTool`,
 * `toHaveCalledToolsInOrder` and `toHaveNoProtocolErrors` to `expect`. Here they read the cassette the fixtures
 * example recorded; they take a `useCassette` session (its `path`) or any trace file the same way.
 */
import { fileURLToPath } from 'node:url';
import 'mcp-tapedeck/vitest';
import { describe, expect, it } from 'vitest';

const cassette = fileURLToPath(new URL('../fixtures/__cassettes__/everything.jsonl', import.meta.url));

describe('the recorded server-everything session', () => {
  it('called echo with its message, then get-sum', async () => {
    await expect(cassette).toHaveCalledTool('echo', { message: 'hello' });
    await expect(cassette).toHaveCalledToolsInOrder(['echo', 'get-sum']);
    await expect(cassette).not.toHaveCalledTool('get-env');
  });

  it('speaks the protocol without errors', async () => {
    await expect(cassette).toHaveNoProtocolErrors();
  });

  it('says what was called instead when an expectation fails', async () => {
    await expect(expect(cassette).toHaveCalledToolsInOrder(['get-sum', 'echo'])).rejects.toThrow(
      'expected calls in the order get-sum → echo; stopped before "echo" in echo → get-sum',
    );
  });
});
