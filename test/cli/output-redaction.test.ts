/**
 * What the CLI writes from traffic goes through the trace's redaction: notices (say), results (print), the one line
 * of a failure; a command's own words (a share link, a token it minted) are written as they are.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { print, say, traceFiles, withRedaction } from '../../src/cli/io.js';
import { builtInOutputRedaction } from '../../src/redact/output.js';
import { encodeLine } from '../../src/trace/encode.js';
import { memoryIo, useCliHarness } from '../helpers/cli.js';

const GITHUB = `ghp_${'Zq4Rt8Wm2Np6Ks0Lx3Vb'}${'7Hc1Jd5Fg9Ty2Ue4'}`;
const io = useCliHarness('tapedeck-output-redaction-');

describe('an io that writes from traffic', () => {
  it('redacts every notice and result, and reads the run’s own trace files', async () => {
    const plain = memoryIo();
    const out = withRedaction(plain, builtInOutputRedaction());
    say(out, `injected error on resources/read file:///r?access_token=${GITHUB}`);
    await print(out, `{"headers":[["Authorization","Bearer ${GITHUB}"]]}\n`);
    expect(plain.stderr.text).toBe(
      'tapedeck: injected error on resources/read file:///r?access_token=[REDACTED:github-token]\n',
    );
    expect(plain.stdout.text).toBe('{"headers":[["Authorization","[REDACTED:authorization-header]"]]}\n');
    expect(traceFiles(out)).toBe(traceFiles(plain));
  });

  it('and one without leaves a command’s own words as they are', async () => {
    const plain = memoryIo();
    await print(plain, `share link: https://collector.example/s/${GITHUB}\n`);
    expect(plain.stdout.text).toContain(GITHUB);
  });
});

describe('the CLI', () => {
  it('hides a secret the one line of a failure quotes', async () => {
    const missing = join(io.dir, `run-${GITHUB}.jsonl`);
    expect(await io.run(['stats', missing])).not.toBe(0);
    expect(io.stderr).toMatch(/^tapedeck: .*run-\[REDACTED:github-token\]\.jsonl/);
    expect(io.stderr).not.toContain(GITHUB);
  });

  it('says once per run that the built-in rules are off, however many times the command loads them', async () => {
    const path = join(io.dir, 'clean.jsonl');
    writeFileSync(
      path,
      [
        {
          v: 1,
          type: 'meta',
          startedAt: '2026-01-01T00:00:00.000Z',
          label: 'x',
          kind: 'mcp',
          producer: { name: 'tapedeck', version: '0' },
          traceId: 't',
          segment: 0,
          transport: 'stdio',
        },
        { t: '2026-01-01T00:00:00.000Z', seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      ]
        .map((line) => encodeLine(line as never))
        .join(''),
    );
    expect(await io.run(['scan', path, '--no-redact-defaults'])).toBe(0);
    expect(io.stderr.match(/built-in redaction rules are off/g)).toHaveLength(1);
  });
});
