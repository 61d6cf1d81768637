/**
 * The collector sink in a process of its own: closing must keep the process alive until the collector has every
 * line, even when nothing else is left on its event loop.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { json, TEST_TOKEN, useCollector } from '../collector/helpers.js';

const execFileAsync = promisify(execFile);

describe('the collector sink', () => {
  const h = useCollector();

  it('delivers everything on close in a process that has nothing else to wait for', async () => {
    // The built sink in a process of its own whose event loop holds nothing but the upload: closing must keep it
    // alive until the collector has every line (a recorder that stopped its server is such a process).
    const script = join(h.dir, 'close-only.mjs');
    const dist = (file: string) =>
      JSON.stringify(pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'sink', file)).href);
    writeFileSync(
      script,
      [
        `import { LiveFileSink } from ${dist('collector.js')};`,
        `import { createLiveTrace } from ${dist('collector-client.js')};`,
        'const [url, token, path] = process.argv.slice(2);',
        `const trace = await createLiveTrace({ url, token }, 'close-only');`,
        'const sink = new LiveFileSink({ path, collector: { url, token, traceId: trace.id } });',
        `sink.start({ v: 1, type: 'meta', startedAt: new Date().toISOString(), label: 'close-only' });`,
        "const note = (i) => sink.append({ t: new Date().toISOString(), dir: 'in', raw: { jsonrpc: '2.0', method: 'n', params: { i } } });",
        'for (let i = 1; i <= 5; i++) note(i);',
        // Once the first lines are delivered the upload is idle; the last ones are only queued when close() runs.
        'await new Promise((resolve) => setTimeout(resolve, 300));',
        'for (let i = 6; i <= 10; i++) note(i);',
        "await sink.close({ reason: 'process_exit' });",
        'process.stdout.write(trace.id);',
      ].join('\n'),
    );
    const { stdout } = await execFileAsync(process.execPath, [
      script,
      h.url,
      TEST_TOKEN,
      join(h.dir, 'close-only.jsonl'),
    ]);
    expect(stdout).not.toBe('');
    const summary = await json(fetch(`${h.url}/api/v1/traces/${stdout}`));
    expect(summary).toMatchObject({ label: 'close-only', lines: 10, ended: true });
  });
});
