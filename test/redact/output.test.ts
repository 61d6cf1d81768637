import { describe, expect, it } from 'vitest';
import { compile } from '../../src/redact/compile.js';
import { builtInOutputRedaction, outputRedaction } from '../../src/redact/output.js';
import { chars } from './fabricate.js';

const GITHUB = `ghp_${chars(36)}`;
const SESSION = '75100744-e3d1-4f53-8d12-5556cf935de7';

describe('output redaction', () => {
  const shown = builtInOutputRedaction();

  it('hides secrets in text, in JSON by key and by name, and in a message by path rule', () => {
    expect(shown.text(`calling with token=${GITHUB}`)).toBe('calling with token=[REDACTED:github-token]');
    expect(shown.json({ env: [{ name: 'DB_PASSWORD', value: 'hunter2-x' }], pin_code: 4242 })).toEqual({
      env: [{ name: 'DB_PASSWORD', value: '[REDACTED:password]' }],
      pin_code: '[REDACTED:pin-code]',
    });
    const own = outputRedaction(
      compile({ defaults: true, rules: [{ type: 'path', path: '$.result.account' }], mode: 'marker' }),
    );
    expect(own.message({ result: { account: 'acme-7', n: 1 } })).toEqual({
      result: { account: '[REDACTED:account]', n: 1 },
    });
    // A value that is not a message is not rooted where path rules point.
    expect(own.json({ result: { account: 'acme-7' } })).toEqual({ result: { account: 'acme-7' } });
  });

  it('names a session by the stable hash its trace gives it, and a recorder exchange id as it is', () => {
    const marker = shown.conn(SESSION);
    expect(marker).toMatch(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/);
    expect(shown.conn(SESSION)).toBe(marker);
    expect(shown.conn('h3')).toBe('h3');
  });

  it('writes markers the way the trace does: in hash mode, with its keyed hash', () => {
    const hashed = outputRedaction(
      compile({ defaults: true, rules: [], mode: 'hash' }, { hasher: () => 'ab'.repeat(32) }),
    );
    expect(hashed.text(`token ${GITHUB}`)).toBe('token [REDACTED:github-token:abababababab]');
  });
});
