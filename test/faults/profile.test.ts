import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TapedeckError } from '../../src/base/errors.js';
import { loadFaultProfile } from '../../src/faults/load.js';
import { faultProfile, faultRules } from '../../src/faults/profile.js';

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-fault-profiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('fault profiles', () => {
  it('reads a YAML profile: spec strings, objects by part, timed faults and the seed', async () => {
    const path = file(
      'faults.yaml',
      [
        'seed: 7',
        'faults:',
        '  - latency=200~50@tools/call',
        '  - kind: error',
        '    value: -32000',
        '    match: tools/call:echo',
        '    nth: 3-',
        '  - { after: 1.5s, kind: disconnect }',
        '  - { kind: drop, percent: 25, after: 200 }',
      ].join('\n'),
    );
    const profile = await loadFaultProfile(path);
    expect(profile.seed).toBe(7);
    expect(profile.faults.map((rule) => rule.source)).toEqual([
      'latency=200~50@tools/call',
      'error=-32000@tools/call:echo#3-',
      'disconnect after 1500ms',
      'drop%25 after 200ms',
    ]);
    expect(profile.faults[1]).toMatchObject({
      action: { kind: 'error', code: -32000 },
      match: { method: 'tools/call', name: 'echo' },
      nth: { n: 3, onward: true },
    });
    expect(profile.faults[2]).toMatchObject({ action: { kind: 'disconnect' }, afterMs: 1500 });
  });

  it('reads a JSON profile, a bare list included', async () => {
    const path = file('faults.json', JSON.stringify(['drop@tools/call#2', { kind: 'tool-error' }]));
    const profile = await loadFaultProfile(path);
    expect(profile.seed).toBeUndefined();
    expect(profile.faults.map((rule) => rule.action.kind)).toEqual(['drop', 'tool-error']);
  });

  it('refuses what is not a profile in one line naming the file and the entry', async () => {
    const refusal = async (name: string, text: string) => {
      const error = await loadFaultProfile(file(name, text)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TapedeckError);
      expect((error as TapedeckError).code).toBe('usage');
      expect((error as Error).message).not.toContain('\n');
      return (error as Error).message;
    };
    expect(await refusal('bad.yaml', 'faults:\n  - kind: explode\n')).toMatch(
      /^--faults .*bad\.yaml: faults\[0\] has an unknown kind 'explode'; expected one of latency/,
    );
    expect(await refusal('keys.yaml', 'faults:\n  - { kind: drop, when: soon }\n')).toMatch(
      /faults\[0\] has an unknown key 'when'; expected kind, value, match, percent, nth, after$/,
    );
    expect(await refusal('after.yaml', 'faults:\n  - { kind: disconnect, after: later }\n')).toMatch(
      /has a bad after 'later'; expected a duration such as 5s/,
    );
    expect(await refusal('broken.json', '{"faults": [')).toMatch(/is not valid JSON: /);
    expect(await refusal('seed.yaml', 'seed: -1\nfaults: []\n')).toMatch(
      /has a bad seed -1; expected a whole number from 0/,
    );
    expect(await refusal('top.yaml', 'hello\n')).toMatch(
      /must hold a list of faults, or an object with `faults`/,
    );
    const missing = await loadFaultProfile(join(dir, 'nope.yaml')).catch((e: Error) => e.message);
    expect(missing).toMatch(
      /^--faults .*nope\.yaml: cannot read the file \(ENOENT\); expected a JSON or YAML fault profile$/,
    );
  });

  it('takes rules already parsed as they are, and documents as faultProfile reads them', () => {
    const [rule] = faultRules(['duplicate']);
    expect(faultRules([rule!])).toEqual([rule]);
    expect(faultProfile({ faults: ['malformed#1'] }, 'inline').faults[0]!.action).toEqual({
      kind: 'malformed',
    });
  });
});
