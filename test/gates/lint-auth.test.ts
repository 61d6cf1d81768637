/**
 * The OAuth rules inside `tapedeck lint`: the official SDK client signs in to a protected SDK server through the
 * recording proxy, the trace is written to a file, and the CLI lints it with its rule settings.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lintTrace } from '../../src/gates/lint/lint-trace.js';
import { encodeLine } from '../../src/trace/encode.js';
import { useCliHarness } from '../helpers/cli.js';
import { type RecordingProxy, startRecording } from '../helpers/http-proxy.js';
import {
  connectWithOAuth,
  MemoryClientProvider,
  type ProtectedServer,
  type ProtectedServerOptions,
  startProtectedServer,
} from '../helpers/oauth-peers.js';

const cli = useCliHarness('tapedeck-lint-auth-');
let server: ProtectedServer | undefined;
let rec: RecordingProxy | undefined;
afterEach(async () => {
  await rec?.stop();
  await server?.close();
  rec = undefined;
  server = undefined;
});

/** Signs in and calls `whoami` through the recording proxy; writes the trace to `name` in the harness folder. */
async function recordFlow(options: ProtectedServerOptions, name: string): Promise<string> {
  server = await startProtectedServer(options);
  rec = await startRecording(server.url);
  try {
    const client = await connectWithOAuth(rec.proxy.url, new MemoryClientProvider());
    await client.callTool({ name: 'whoami' });
    await client.close();
  } catch {
    // A refused flow is what some tests record; its lines are the point.
  }
  await rec.stop();
  const file = join(cli.dir, name);
  writeFileSync(file, rec.sink.lines.map((line) => encodeLine(line)).join(''));
  rec = undefined;
  return file;
}

const authRules = (rules: string[]) => rules.filter((rule) => rule.startsWith('auth/'));

describe('tapedeck lint with the OAuth rules, over recorded sign-ins', () => {
  it('finds no auth problem in a clean sign-in (the 401 carries its challenge)', async () => {
    const file = await recordFlow({}, 'clean.jsonl');
    const { findings } = await lintTrace(file);
    expect(authRules(findings.map((f) => f.rule))).toEqual([]);
    // The first initialize met the 401; sent again with the same id after sign-in, it is no reused id.
    const code = await cli.run(['lint', file, '--fail-on', 'warn']);
    expect(code).toBe(0);
  });

  it('reports scopes not granted and a call refused for its scope, with levels from --rule and the config', async () => {
    const file = await recordFlow(
      { requiredScopes: ['mcp', 'admin'], grant: (scopes) => scopes.filter((s) => s !== 'admin') },
      'scope.jsonl',
    );
    const { findings } = await lintTrace(file);
    const auth = findings.filter((f) => f.rule.startsWith('auth/'));
    expect(auth.map((f) => [f.rule, f.level])).toEqual(
      expect.arrayContaining([
        ['auth/scope-not-granted', 'warn'],
        ['auth/insufficient-scope', 'error'],
      ]),
    );
    for (const finding of auth) expect(finding.file).toBe(file);
    expect(await cli.run(['lint', 'scope.jsonl'])).toBe(1);
    expect(cli.stdout).toMatch(/^scope\.jsonl:\d+ +error +auth\/insufficient-scope/m);
    expect(cli.stdout).toMatch(/^scope\.jsonl:\d+ +warn +auth\/scope-not-granted/m);

    cli.stdout = '';
    const off = ['--rule', 'auth/insufficient-scope=off', '--rule', 'auth/scope-not-granted=off'];
    const rest = findings.filter((f) => !f.rule.startsWith('auth/') && f.level === 'error');
    expect(await cli.run(['lint', 'scope.jsonl', ...off])).toBe(rest.length > 0 ? 1 : 0);
    expect(cli.stdout).not.toContain('auth/');

    writeFileSync(
      join(cli.dir, 'tapedeck.config.json'),
      JSON.stringify({ lint: { rules: { 'auth/insufficient-scope': 'info' } } }),
    );
    cli.stdout = '';
    await cli.run(['lint', 'scope.jsonl']);
    expect(cli.stdout).toMatch(/info +auth\/insufficient-scope/);
  });

  it('reports a token refused for its audience', async () => {
    const file = await recordFlow(
      { expectedResource: (origin) => new URL(`${origin}/elsewhere`) },
      'audience.jsonl',
    );
    expect(await cli.run(['lint', file, '--json'])).toBe(1);
    const report = JSON.parse(cli.stdout) as { traces: { findings: { rule: string }[] }[] };
    expect(report.traces[0]!.findings.map((f) => f.rule)).toContain('auth/audience-mismatch');
  });

  it('lists the auth rules and refuses an unknown one', async () => {
    expect(await cli.run(['lint', '--list-rules'])).toBe(0);
    for (const id of [
      'auth/challenge-without-www-authenticate',
      'auth/resource-mismatch',
      'auth/audience-mismatch',
      'auth/insufficient-scope',
      'auth/scope-not-granted',
    ])
      expect(cli.stdout).toContain(id);
    expect(await cli.run(['lint', 'x.jsonl', '--rule', 'auth/nope=off'])).toBe(2);
    expect(cli.stderr).toContain("names no lint rule 'auth/nope'");
  });
});
