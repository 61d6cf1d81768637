/**
 * The MCP Inspector CLI (a client we did not write) against `tapedeck replay`: each call is first recorded live
 * (server-everything behind `tapedeck record`; the Inspector runs initialize, logging/setLevel and one call per
 * process), then replayed
 * from that cassette. The Inspector must print the same JSON both ways.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  everythingServer,
  makeTempDir,
  type ProcessResult,
  readTrace,
  recordedWithoutDashes,
  removeTempDir,
  rpc,
  runInspector,
  TAPEDECK_BIN,
  traceParts,
} from '../helpers/peers.js';

const CALLS = {
  'tools/list': ['--method', 'tools/list'],
  'tools/call echo': [
    '--method',
    'tools/call',
    '--tool-name',
    'echo',
    '--tool-arg',
    'message=hi from the inspector',
  ],
  'resources/read': [
    '--method',
    'resources/read',
    '--uri',
    'demo://resource/static/document/instructions.md',
  ],
  'prompts/get': [
    '--method',
    'prompts/get',
    '--prompt-name',
    'args-prompt',
    '--prompt-args',
    'city=Lisbon',
    'state=PT',
  ],
} as const;
type CallName = keyof typeof CALLS;

/** `tapedeck replay <cassette>` with its stderr sent to a file (exec: signals and stdio reach it directly). */
function replayLoggingTo(cassette: string, stderrFile: string) {
  return {
    command: '/bin/sh',
    args: ['-c', 'exec "$0" "$1" replay "$2" 2>"$3"', process.execPath, TAPEDECK_BIN, cassette, stderrFile],
  };
}

async function waitForEndLine(file: string): Promise<void> {
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    if (existsSync(file) && readFileSync(file, 'utf8').includes('"type":"end"')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The replay process's stderr once its report is written (it may still be exiting when the Inspector is done). */
async function finalReport(file: string): Promise<string> {
  const until = Date.now() + 5000;
  let text = '';
  while (Date.now() < until) {
    text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (text.includes('replayed')) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return text;
}

const NAMES = Object.keys(CALLS) as CallName[];

describe('MCP Inspector CLI ↔ tapedeck replay', () => {
  let tmp: string | undefined;
  const live = {} as Record<CallName, ProcessResult>;
  const replayed = {} as Record<CallName, ProcessResult>;
  /** What each replay process wrote to stderr (the Inspector does not pass its server's stderr on). */
  const reports = {} as Record<CallName, string>;
  const requests = {} as Record<CallName, number>;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-replay-');
    const cassette = (name: CallName) => join(tmp!, `${name.replace(/\W+/g, '-')}.jsonl`);
    // Recordings one after the other (each Inspector run is two or three Node processes on a 2-core machine);
    // each replay runs beside the next recording.
    let previous: Promise<void> = Promise.resolve();
    for (const name of NAMES) {
      live[name] = await runInspector(recordedWithoutDashes(everythingServer(), cassette(name)), [
        ...CALLS[name],
      ]);
      // The Inspector may exit before the recorder behind it has written the trace's last lines.
      await waitForEndLine(cassette(name));
      requests[name] = traceParts(readTrace(cassette(name)))
        .in.map(rpc)
        .filter((m) => m.method !== undefined && m.id !== undefined).length;
      await previous;
      const stderrFile = `${cassette(name)}.stderr`;
      previous = runInspector(replayLoggingTo(cassette(name), stderrFile), [...CALLS[name]]).then(
        async (result) => {
          replayed[name] = result;
          reports[name] = await finalReport(stderrFile);
        },
      );
    }
    await previous;
  });

  afterAll(() => removeTempDir(tmp));

  it.each(NAMES)('prints the same JSON for %s as against the live server', (name) => {
    expect({ code: live[name].code, stderr: live[name].code === 0 ? '' : live[name].stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    expect(replayed[name].code).toBe(0);
    expect(replayed[name].stdout).toBe(live[name].stdout);
    // Every request the Inspector made (initialize, logging/setLevel, the call, and what it looks up first).
    expect(requests[name]).toBeGreaterThanOrEqual(2);
    expect(reports[name]).toBe(`tapedeck: replayed ${requests[name]}/${requests[name]} exchanges\n`);
  });

  it('prints real answers (so the comparison above is not vacuous)', () => {
    expect(JSON.parse(replayed['tools/call echo'].stdout)).toEqual({
      content: [{ type: 'text', text: 'Echo: hi from the inspector' }],
    });
    expect(JSON.parse(replayed['prompts/get'].stdout)).toMatchObject({
      messages: [{ content: { text: "What's weather in Lisbon, PT?" } }],
    });
    expect(replayed['resources/read'].stdout).toContain('"mimeType": "text/markdown"');
    expect(JSON.parse(replayed['tools/list'].stdout).tools.length).toBeGreaterThan(5);
  });
});
