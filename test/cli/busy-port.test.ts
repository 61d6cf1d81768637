import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useCliHarness } from '../helpers/cli.js';

const trace = join(import.meta.dirname, '..', 'fixtures', 'interop', 'mcp-tape', 'everything-stdio.jsonl');

describe('a listener on a port that is taken', () => {
  const io = useCliHarness('tapedeck-busy-port-');
  let taken: Server;
  let port = 0;
  beforeEach(async () => {
    taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    port = (taken.address() as { port: number }).port;
  });
  afterEach(async () => {
    await new Promise<void>((done) => taken.close(() => done()));
  });

  it('view --port: one line naming the address and the flag, exit 1 like the other listeners', async () => {
    expect(await io.run(['view', trace, '--no-open', '--port', String(port)])).toBe(1);
    expect(io.stderr).toBe(
      `tapedeck: cannot listen on 127.0.0.1:${port}: the port is in use; pick another with --port, or leave it out (EADDRINUSE)\n`,
    );
  });

  it('mcp --http: the same', async () => {
    const code = await io.run(['mcp', '--data-dir', join(io.dir, 'data'), '--http', `127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expect(io.stderr).toBe(
      `tapedeck: cannot listen on 127.0.0.1:${port}: the port is in use; pick another port with --http HOST:PORT (EADDRINUSE)\n`,
    );
  });

  it('serve --port: the same exit code', async () => {
    const code = await io.run(['serve', '--db', join(io.dir, 'c.db'), '--port', String(port)]);
    expect(code).toBe(1);
    expect(io.stderr).toMatch(
      new RegExp(`^tapedeck: cannot listen on 127\\.0\\.0\\.1:${port}: .*in use.*\\n$`),
    );
  });
});
