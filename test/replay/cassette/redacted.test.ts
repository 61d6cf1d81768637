/**
 * Matching against redacted cassettes: cassettes made with the real redactor (marker and hash mode), live requests
 * carrying the real secrets, through the Matcher and through replayTransport.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TransportMessage } from '../../../src/capture/sdk-transport.js';
import { createRedactor, summarize } from '../../../src/redact/index.js';
import { createKeyedHasher, loadRedactKey } from '../../../src/redact/key-store.js';
import type { RedactConfig, ValueHasher } from '../../../src/redact/types.js';
import { buildCassette } from '../../../src/replay/cassette/cassette.js';
import { Matcher } from '../../../src/replay/cassette/matcher.js';
import {
  type CassetteRedactionOptions,
  cassetteRedaction,
  redactionSummaryOf,
} from '../../../src/replay/cassette/redacted.js';
import { replayTransport } from '../../../src/replay/sdk/replay-transport.js';
import { encodeLine } from '../../../src/trace/encode.js';
import type { JsonObject } from '../../../src/trace/jsonrpc.js';
import type { MetaLine, TraceLine } from '../../../src/trace/types.js';
import { req, res, traceLines } from '../helpers.js';

const GITHUB = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const OTHER_GITHUB = 'ghp_ZYXWVUTSRQPONMLKJIHGzyxwvutsrqpo987654';

function deployParams(apiKey: string, token = GITHUB): JsonObject {
  return { name: 'deploy', arguments: { apiKey, note: `push with ${token} please`, region: 'eu' } };
}

let home: string;
let where: NonNullable<CassetteRedactionOptions['where']>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'tapedeck-redacted-'));
  // No user or project redact.json, no $TAPEDECK_REDACT, the hash key in a folder of our own.
  where = { env: { TAPEDECK_HOME: join(home, '.tapedeck') }, cwd: home, home };
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** A recorded session, redacted as `tapedeck record` redacts it, with the summary on its meta line. */
function recorded(config: RedactConfig, hasher?: ValueHasher): TraceLine[] {
  const redactor = createRedactor(config, hasher ? { hasher } : {});
  const lines = traceLines([
    ['in', req(1, 'tools/call', deployParams('sk-live-1234567890abcdef'))],
    ['out', res(1, { content: [{ type: 'text', text: 'deployed' }] })],
    ['in', req(2, 'tools/call', { name: 'lookup', arguments: { order: 'ACME-12345678' } })],
    ['out', res(2, { content: [{ type: 'text', text: 'found' }] })],
  ]);
  const meta = { ...(lines[0] as MetaLine), redaction: summarize(config) };
  return [meta, ...lines.slice(1).map((line) => redactor(line))];
}

async function matcherFor(lines: TraceLine[], options: CassetteRedactionOptions = {}) {
  const meta = lines[0] as MetaLine;
  const cassette = await buildCassette(lines, { meta });
  const redact = await cassetteRedaction(meta, { where, ...options });
  return new Matcher(cassette, { redact });
}

const MARKER: RedactConfig = { defaults: true, rules: [], mode: 'marker' };

describe('redacted cassettes', () => {
  it('reads the summary of a meta line', () => {
    const meta = recorded(MARKER)[0] as MetaLine;
    expect(redactionSummaryOf(meta)).toEqual({ defaults: true, customRules: 0, mode: 'marker' });
    expect(redactionSummaryOf({ ...meta, redaction: undefined })).toBeUndefined();
    expect(redactionSummaryOf({ ...meta, redaction: { mode: 'odd' } })).toBeUndefined();
  });

  it('marker mode: a live request with the real secrets matches its redacted recording', async () => {
    const lines = recorded(MARKER);
    const raw = JSON.stringify(lines[1]);
    expect(raw).toContain('[REDACTED:');
    expect(raw).not.toContain('sk-live');
    expect(raw).not.toContain(GITHUB);
    const matcher = await matcherFor(lines);
    const hit = matcher.match('tools/call', deployParams('sk-live-1234567890abcdef'));
    expect(hit.kind).toBe('hit');
    // Marker mode cannot tell secrets apart: other secrets match the same recording.
    const again = await matcherFor(lines);
    expect(again.match('tools/call', deployParams('sk-other-999', OTHER_GITHUB)).kind).toBe('hit');
    // What is not a secret still has to match.
    const wrong = await matcherFor(lines);
    const miss = wrong.match('tools/call', { ...deployParams('sk-live-1234567890abcdef'), name: 'destroy' });
    expect(miss.kind).toBe('miss');
    // The miss message shows the live request redacted, never the secret.
    if (miss.kind === 'miss') expect(miss.miss.message).not.toContain('sk-live');
  });

  it('marker mode: a recording whose markers name other rules (an older tapedeck) still matches', async () => {
    const lines = recorded(MARKER);
    // As recorded before a value's own format named its marker: the generic key rule's id everywhere.
    const older = JSON.parse(JSON.stringify(lines[1]).replace(/\[REDACTED:[a-z-]+\]/g, '[REDACTED:token]'));
    const matcher = await matcherFor([lines[0]!, older, ...lines.slice(2)]);
    expect(matcher.match('tools/call', deployParams('sk-live-1234567890abcdef')).kind).toBe('hit');
  });

  it('hash mode: the same secret matches under the per-install key, a different one does not', async () => {
    const hasher = createKeyedHasher(loadRedactKey(where.env));
    const lines = recorded({ ...MARKER, mode: 'hash' }, hasher);
    expect(JSON.stringify(lines[1])).toMatch(/\[REDACTED:[a-z-]+:[0-9a-f]{12}\]/);
    // No hasher given: cassetteRedaction reads the key from $TAPEDECK_HOME, as record wrote it.
    const same = await matcherFor(lines);
    expect(same.match('tools/call', deployParams('sk-live-1234567890abcdef')).kind).toBe('hit');
    const otherKey = await matcherFor(lines);
    expect(otherKey.match('tools/call', deployParams('sk-live-0000000000000000')).kind).toBe('miss');
    const otherToken = await matcherFor(lines);
    expect(otherToken.match('tools/call', deployParams('sk-live-1234567890abcdef', OTHER_GITHUB)).kind).toBe(
      'miss',
    );
  });

  it('hash mode without the key warns and cannot match secrets', async () => {
    const hasher = createKeyedHasher(Buffer.alloc(32, 7));
    const lines = recorded({ ...MARKER, mode: 'hash' }, hasher);
    const warnings: string[] = [];
    const matcher = await matcherFor(lines, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([expect.stringContaining('no redaction key')]);
    expect(matcher.match('tools/call', deployParams('sk-live-1234567890abcdef')).kind).toBe('miss');
  });

  it('custom rules: loaded from the same flags they match; missing ones are warned about once', async () => {
    const config: RedactConfig = { ...MARKER, rules: [{ type: 'regex', pattern: '\\bACME-[0-9]{8}\\b' }] };
    const lines = recorded(config);
    expect(JSON.stringify(lines[3])).not.toContain('ACME-12345678');
    const order = { name: 'lookup', arguments: { order: 'ACME-12345678' } };

    const warnings: string[] = [];
    const without = await matcherFor(lines, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/redacted with 1 custom rule but 0 are loaded here/);
    expect(without.match('tools/call', order).kind).toBe('miss');

    const flagged = await matcherFor(lines, {
      patterns: ['\\bACME-[0-9]{8}\\b'],
      onWarning: (w) => warnings.push(w),
    });
    expect(warnings).toHaveLength(1);
    expect(flagged.match('tools/call', order).kind).toBe('hit');

    // A --redact-file is one of the sources, as for record.
    await writeFile(
      join(home, 'redact.json'),
      '{"rules":[{"type":"regex","pattern":"\\\\bACME-[0-9]{8}\\\\b"}]}',
    );
    const fromFile = await matcherFor(lines, { files: [join(home, 'redact.json')] });
    expect(fromFile.match('tools/call', order).kind).toBe('hit');
  });

  it('leaves cassettes without a redaction summary as they were', async () => {
    const lines = traceLines([
      ['in', req(1, 'tools/call', deployParams('sk-live-1234567890abcdef'))],
      ['out', res(1, { content: [{ type: 'text', text: 'deployed' }] })],
    ]);
    const meta = lines[0] as MetaLine;
    expect(await cassetteRedaction(meta, { where })).toBeUndefined();
    const matcher = await matcherFor(lines);
    expect(matcher.match('tools/call', deployParams('sk-live-1234567890abcdef')).kind).toBe('hit');
    const other = await matcherFor(lines);
    expect(other.match('tools/call', deployParams('sk-other-999')).kind).toBe('miss');
  });

  it('replayTransport redacts requests for matching and answers as recorded', async () => {
    const hasher = createKeyedHasher(loadRedactKey(where.env));
    const lines = recorded({ ...MARKER, mode: 'hash' }, hasher);
    const file = join(home, 'cassette.jsonl');
    await writeFile(file, `${lines.map((line) => encodeLine(line)).join('\n')}\n`, { mode: 0o600 });

    const ask = async (options: Parameters<typeof replayTransport>[1], params: JsonObject) => {
      const transport = replayTransport(file, { allowUnused: true, ...options } as never);
      const got: TransportMessage[] = [];
      transport.onmessage = (message) => got.push(message);
      await transport.start();
      await transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params });
      await transport.idle();
      await transport.close();
      return got[0];
    };
    const hit = await ask({ redaction: { where } }, deployParams('sk-live-1234567890abcdef'));
    expect(hit).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'deployed' }] } });
    const other = await ask({ redaction: { where } }, deployParams('sk-live-0000000000000000'));
    expect(other).toMatchObject({ id: 7, error: { code: expect.any(Number) } });
    const off = await ask({ redaction: false }, deployParams('sk-live-1234567890abcdef'));
    expect(off).toMatchObject({ id: 7, error: { code: expect.any(Number) } });
  });
});
