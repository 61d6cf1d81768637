/**
 * The MCP Inspector CLI (a client we did not write) against server-everything over Streamable HTTP, directly and
 * through the recording proxy: it must print the same both ways, and the trace must hold what it printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectExchanges } from '../../../src/trace/pairing.js';
import {
  messagesOf,
  type RecordingProxy,
  type RunningEverything,
  rpcOf,
  startEverything,
  startRecording,
} from '../../helpers/http-proxy.js';
import { INSPECTOR_CLI, NODE_MODULES, type ProcessResult, runProcess } from '../../helpers/peers.js';

const ECHO = ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=via inspector'];

/** inspector-cli 1.0.3 reads ../package.json relative to its working directory, hence cwd node_modules. */
function inspect(url: string, args: string[]): Promise<ProcessResult> {
  return runProcess(process.execPath, [INSPECTOR_CLI, url, '--transport', 'http', ...args], {
    cwd: NODE_MODULES,
  });
}

describe('MCP Inspector CLI → recording proxy → server-everything (Streamable HTTP)', () => {
  let everything: RunningEverything | undefined;
  let recording: RecordingProxy | undefined;
  let direct: ProcessResult;
  let proxied: ProcessResult;

  beforeAll(async () => {
    everything = await startEverything('streamableHttp');
    recording = await startRecording(`${everything.origin}/mcp`);
    direct = await inspect(`${everything.origin}/mcp`, ECHO);
    proxied = await inspect(recording.proxy.url, ECHO);
    await recording.stop();
  });

  afterAll(async () => {
    await recording?.stop();
    await everything?.stop();
  });

  it('prints the same as it does directly', () => {
    expect({ code: direct.code, stderr: direct.code === 0 ? '' : direct.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    expect(proxied.code).toBe(0);
    expect(JSON.parse(proxied.stdout)).toEqual(JSON.parse(direct.stdout));
    expect(proxied.stdout).toContain('Echo: via inspector');
  });

  it('records the call and the answer it printed, paired', () => {
    const lines = recording!.sink.lines;
    const call = collectExchanges(lines).exchanges.find((x) => x.method === 'tools/call')!;
    expect(call.request.params).toMatchObject({ name: 'echo', arguments: { message: 'via inspector' } });
    expect(call.response?.result).toEqual(JSON.parse(proxied.stdout));
    const answer = messagesOf(lines).find(
      (m) => m.dir === 'out' && rpcOf(m).id === call.id && m.conn === call.conn,
    )!;
    expect(answer.stream).toBe(call.requestRef.line.stream);
  });
});
