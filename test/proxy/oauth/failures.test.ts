import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { showTrace } from '../../../src/cli/commands/show.js';
import { authSteps, firstFailure } from '../../../src/trace/auth-flow.js';
import { lintAuth } from '../../../src/trace/auth-lint.js';
import { encodeLine } from '../../../src/trace/encode.js';
import type { TraceLine } from '../../../src/trace/types.js';
import { memoryIo } from '../../helpers/cli.js';
import { type RecordingProxy, startRecording } from '../../helpers/http-proxy.js';
import {
  connectWithOAuth,
  MemoryClientProvider,
  type ProtectedServer,
  type ProtectedServerOptions,
  startProtectedServer,
} from '../../helpers/oauth-peers.js';
import { scratchDir } from '../../helpers/scratch.js';

let server: ProtectedServer | undefined;
let rec: RecordingProxy | undefined;
afterEach(async () => {
  await rec?.stop();
  await server?.close();
  rec = undefined;
  server = undefined;
});

/** A protected server with `options`, the proxy in front, and the SDK client run through it. */
async function through(
  options: ProtectedServerOptions,
): Promise<{ provider: MemoryClientProvider; error?: unknown }> {
  server = await startProtectedServer(options);
  rec = await startRecording(server.url);
  const provider = new MemoryClientProvider();
  try {
    const client = await connectWithOAuth(rec.proxy.url, provider);
    await client.callTool({ name: 'whoami' });
    await client.close();
    return { provider };
  } catch (error) {
    return { provider, error };
  }
}

/** `tapedeck show` of the lines recorded so far, without colour, 140 columns wide. */
async function show(lines: TraceLine[]): Promise<string> {
  const file = join(scratchDir('tapedeck-oauth-show-'), 'trace.jsonl');
  writeFileSync(file, lines.map((line) => encodeLine(line)).join(''));
  const io = memoryIo({ env: { COLUMNS: '140', NO_COLOR: '1' } });
  await showTrace(file, {}, io);
  return io.stdout.text;
}

describe('OAuth failures through the recording proxy, recorded and shown', () => {
  it('refreshes an expired token: the refusal, the refresh and the call with the new token are all in the lane', async () => {
    server = await startProtectedServer();
    rec = await startRecording(server.url);
    const provider = new MemoryClientProvider();
    const client = await connectWithOAuth(rec.proxy.url, provider);
    server.expireTokens();
    const result = await client.callTool({ name: 'whoami' });
    expect(result.content).toEqual([{ type: 'text', text: 'client client-1' }]);
    await client.close();
    // The SDK client may refresh once per request that met the expiry (its GET stream and the call): at least once.
    expect(server.issued.resources.length).toBeGreaterThanOrEqual(2);
    expect(new Set(server.issued.resources)).toEqual(new Set([server.url]));
    const steps = authSteps(rec.sink.lines);
    const expired = firstFailure(steps)!;
    expect(expired.step).toBe('call');
    expect(expired.failure).toEqual({ kind: 'expired-token', reason: 'invalid_token: Token has expired' });
    const refreshes = steps.filter((step) => step.step === 'refresh');
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    expect(refreshes.every((step) => step.ok)).toBe(true);
    const calls = steps.filter((step) => step.step === 'call' && step.ok);
    // The first call used the token of the code exchange; the last, a token a refresh issued.
    expect(calls[0]!.token).toBe(steps.find((s) => s.step === 'token')!.token);
    expect(refreshes.map((step) => step.token)).toContain(calls.at(-1)!.token);
    expect(JSON.stringify(rec.sink.lines)).not.toContain(server.issued.refreshTokens[0]!);
    const out = await show(rec.sink.lines);
    expect(out).toContain('first failure at call: expired token');
    expect(out).toMatch(/refresh +200 {2}ok/);
  });

  it('shows a token for the wrong audience as the failing step, with the server’s reason', async () => {
    const { error } = await through({ expectedResource: (origin) => new URL(`${origin}/elsewhere`) });
    expect(error).toBeDefined();
    const failed = firstFailure(authSteps(rec!.sink.lines))!;
    expect(failed.step).toBe('call');
    expect(failed.failure?.kind).toBe('wrong-audience');
    const out = await show(rec!.sink.lines);
    expect(out).toContain('first failure at call: wrong audience');
    expect(out).toContain('Token was not issued for this resource');
    expect(lintAuth(rec!.sink.lines).map((f) => f.rule)).toContain('auth/audience-mismatch');
  });

  it('shows a missing scope as the failing step, naming the scope the server wanted', async () => {
    const { error } = await through({
      requiredScopes: ['mcp', 'admin'],
      grant: (scopes) => scopes.filter((scope) => scope !== 'admin'),
    });
    expect(error).toBeDefined();
    const failed = firstFailure(authSteps(rec!.sink.lines))!;
    expect(failed.failure?.kind).toBe('missing-scope');
    expect(failed.failure?.reason).toContain('needs mcp admin');
    const out = await show(rec!.sink.lines);
    expect(out).toContain('first failure at call: missing scope');
    const rules = lintAuth(rec!.sink.lines).map((f) => f.rule);
    expect(rules).toContain('auth/insufficient-scope');
    expect(rules).toContain('auth/scope-not-granted');
  });
});
