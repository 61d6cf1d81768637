/**
 * The MCP Inspector CLI (a client we did not write) against server-everything, directly and through
 * `tapedeck record`: it must print the same thing both ways, and the trace must hold what it printed. The
 * Inspector keeps the first `--` of its command line for itself, so it wraps `tapedeck record --file F node
 * server…` written without one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  everythingServer,
  isResponse,
  makeTempDir,
  mcpTapeProblems,
  type ProcessResult,
  readTrace,
  recordedWithoutDashes,
  removeTempDir,
  rpc,
  runInspector,
  type TraceParts,
  traceParts,
} from '../helpers/peers.js';

const CALLS = {
  list: ['--method', 'tools/list'],
  echo: ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=hi'],
} as const;
type CallName = keyof typeof CALLS;

interface Run {
  direct: ProcessResult;
  proxied: ProcessResult;
  trace: TraceParts;
  problems: string[];
}

describe('MCP Inspector CLI ↔ server-everything, direct and through tapedeck record', () => {
  let tmp: string | undefined;
  const runs = {} as Record<CallName, Run>;

  beforeAll(async () => {
    tmp = await makeTempDir();
    // One after the other: each Inspector run spawns two or three Node processes, and the machine has two cores.
    for (const name of Object.keys(CALLS) as CallName[]) {
      const traceFile = join(tmp, `${name}.jsonl`);
      const direct = await runInspector(everythingServer(), [...CALLS[name]]);
      const proxied = await runInspector(recordedWithoutDashes(everythingServer(), traceFile), [
        ...CALLS[name],
      ]);
      const lines = readTrace(traceFile);
      runs[name] = { direct, proxied, trace: traceParts(lines), problems: mcpTapeProblems(lines) };
    }
  });

  afterAll(() => removeTempDir(tmp));

  it.each(Object.keys(CALLS) as CallName[])(
    'prints the same output for %s with the recorder in between',
    (name) => {
      const { direct, proxied } = runs[name];
      expect({ code: direct.code, stderr: direct.code === 0 ? '' : direct.stderr }).toEqual({
        code: 0,
        stderr: '',
      });
      expect({ code: proxied.code, stderr: proxied.code === 0 ? '' : proxied.stderr }).toEqual({
        code: 0,
        stderr: '',
      });
      // Byte for byte: nothing in these two answers varies between runs, so nothing is normalised.
      expect(proxied.stdout).toBe(direct.stdout);
    },
  );

  it('prints the real tool list and echo result (so the comparison above is not vacuous)', () => {
    const tools = JSON.parse(runs.list.proxied.stdout) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(JSON.parse(runs.echo.proxied.stdout)).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
  });

  it('records the Inspector request and the answer it printed', () => {
    const { trace, proxied } = runs.echo;
    const call = trace.in.map(rpc).find((m) => m.method === 'tools/call');
    expect(call?.params).toMatchObject({ name: 'echo', arguments: { message: 'hi' } });
    const answer = trace.out.map(rpc).find((m) => isResponse(m) && m.id === call?.id);
    expect(answer?.result).toEqual(JSON.parse(proxied.stdout));

    const listCall = runs.list.trace.in.map(rpc).find((m) => m.method === 'tools/list');
    const listAnswer = runs.list.trace.out.map(rpc).find((m) => isResponse(m) && m.id === listCall?.id);
    expect(listAnswer?.result).toEqual(JSON.parse(runs.list.proxied.stdout));
  });

  it.each(Object.keys(CALLS) as CallName[])('writes a complete mcp-tape v1 trace for %s', (name) => {
    const { trace, problems } = runs[name];
    expect(problems).toEqual([]);
    expect(trace.meta).toMatchObject({ producer: { name: 'tapedeck' }, transport: 'stdio', segment: 0 });
    // The whole server command reached the recorder: the words after `--file F`, none taken as tapedeck's.
    const server = everythingServer();
    expect(trace.meta.command).toEqual([server.command, ...server.args]);
    expect(rpc(trace.in[0]!).method).toBe('initialize');
    expect(rpc(trace.in[0]!).params?.clientInfo).toMatchObject({
      name: expect.stringContaining('inspector'),
    });
    expect(trace.end).toMatchObject({ type: 'end', reason: 'process_exit', exitCode: 0 });
  });
});
