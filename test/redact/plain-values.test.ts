import { describe, expect, it } from 'vitest';
import { compile, findSecrets, redactArgv, redactJson, redactText } from '../../src/redact/index.js';
import { plainValue } from '../../src/redact/plain-values.js';

/**
 * Environment dumps (server-everything's `get-env`, `env` output, `.env` files) hold names with a credential word
 * whose values are no credential: the key rules step aside for those by the value's shape and the name's, and
 * still hide every value that could be a secret.
 */

const compiled = compile({ defaults: true, rules: [], mode: 'marker' });

/** Names and values a shell or a server's environment holds that are no secret. */
const PLAIN: Record<string, string> = {
  PWD: '/home/me/project',
  pwd: '/tmp',
  OLDPWD: '/work/main',
  TOKENIZERS_PARALLELISM: 'false',
  AUTH_ENABLED: 'true',
  DISABLE_AUTH: 'yes',
  USE_AUTH: 'off',
  TOKEN_TTL: '3600',
  SESSION_TOKEN_EXPIRY: '30m',
  PASSWORD_MIN_LENGTH: '12',
  SESSION_SECRET_LENGTH: '64',
  COOKIE_SECURE: '1',
  SSH_AUTH_SOCK: '/tmp/ssh-XXXXk3Yz/agent.4121',
  GOOGLE_APPLICATION_CREDENTIALS: '/home/me/.config/gcloud/service-account.json',
  AWS_SHARED_CREDENTIALS_FILE: '~/.aws/credentials',
  PASSWORD_FILE: '/run/secrets/db_password',
  SECRETS_DIR: '/run',
  GITHUB_TOKEN_URL: 'https://api.github.com/app/installations/1/access_tokens',
  TOKEN_ENDPOINT: 'https://login.example.com/oauth2/token',
  AUTH_TYPE: 'oauth2',
  AUTH_METHOD: 'client_secret_basic',
  SECRET_NAME: 'prod/db-credentials',
};

/** Names and values that are, or may be, secrets: hidden as before. */
const SECRET: Record<string, string> = {
  password: 'hunter2',
  PASSWORD: '123456',
  db_pwd: 'hunter2',
  user_pwd: 'Tr0ub4dor&3',
  PWD_HASH: '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
  pwd: 'hunter2',
  SECRET_CODE: '424242',
  db_password: '/hunter2',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  AUTH_HEADER: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
  NODE_AUTH_TOKEN: 'npm-token-value-1234',
  SECRET_KEY_BASE: 'a1b2c3d4e5f6',
  TOKEN_TTL: 'd8f7a6c5b4e3',
  AUTH_URL: 'hunter2-not-a-url',
};

describe('values the key rules step aside for', () => {
  it.each(Object.entries(PLAIN))('keep %s=%s in JSON, in text and on the command line', (name, value) => {
    const json = { [name]: value };
    expect(redactJson(json, compiled)).toBe(json);
    expect(redactText(`${name}=${value}`, compiled)).toBe(`${name}=${value}`);
    expect(redactText(`"${name}": "${value}"`, compiled)).toBe(`"${name}": "${value}"`);
    expect(redactArgv([`${name}=${value}`], compiled)).toEqual([`${name}=${value}`]);
  });

  it.each(Object.entries(SECRET))(
    'still hide %s=%s in JSON, in text and on the command line',
    (name, value) => {
      expect((redactJson({ [name]: value }, compiled) as Record<string, string>)[name]).toMatch(
        /^\[REDACTED:/,
      );
      expect(redactText(`${name}=${value}`, compiled)).not.toContain(value);
      expect(redactText(`"${name}": "${value}"`, compiled)).not.toContain(value);
      expect(redactArgv([`${name}=${value}`], compiled)[0]).not.toContain(value);
    },
  );

  it('still hide a provider token or a URL password in a value a key rule stepped aside for', () => {
    const out = redactJson(
      {
        TOKEN_ENDPOINT: 'https://bot:s3cr3t-pass@login.example.com/token',
        AUTH_URL: 'https://example.com/cb?access_token=abc123def456',
      },
      compiled,
    ) as Record<string, string>;
    expect(out.TOKEN_ENDPOINT).toBe('https://bot:[REDACTED:url-password]@login.example.com/token');
    expect(out.AUTH_URL).toBe('https://example.com/cb?access_token=[REDACTED:token]');
  });

  it('keep a get-env dump clean for scan, and find the one secret in it', () => {
    const dump = JSON.stringify(
      { ...PLAIN, HOME: '/root', DB_PASSWORD: 'hunter2-but-longer', LANG: 'C.UTF-8' },
      null,
      2,
    );
    const line = {
      t: '2026-12-01T00:00:00.000Z',
      dir: 'out' as const,
      raw: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: dump }] } },
    };
    const found = findSecrets(line, compiled, { entropy: false });
    expect(found.map((f) => [f.rule, f.path])).toEqual([
      ['password', '$.result.content[0].text#$.DB_PASSWORD'],
    ]);
  });

  it('apply to the value after a split flag and in an `-H` header argument', () => {
    expect(redactArgv(['--auth-enabled', 'true', '--pwd', '/srv/app'], compiled)).toEqual([
      '--auth-enabled',
      'true',
      '--pwd',
      '/srv/app',
    ]);
    expect(redactArgv(['--password', 'hunter2'], compiled)).toEqual(['--password', '[REDACTED:password]']);
  });

  it('never apply to a rule a user wrote: a custom key rule hides whatever its name holds', () => {
    const custom = compile({ defaults: false, rules: [{ type: 'key', name: 'tenant' }], mode: 'marker' });
    expect(redactJson({ tenant: 'true', tenant_dir: '/a/b' }, custom)).toEqual({
      tenant: '[REDACTED:tenant]',
      tenant_dir: '[REDACTED:tenant]',
    });
  });
});

describe('plainValue', () => {
  it('decides by the name too: a number is plain after a quantity word only', () => {
    expect(plainValue(['token', 'ttl'], 1, '3600')).toBe(true);
    expect(plainValue(['token'], 1, '3600')).toBe(false);
    expect(plainValue(['secret', 'code'], 1, '3600')).toBe(false);
  });

  it('take any path as the working directory, and a one-segment path only after a trailing word', () => {
    expect(plainValue(['pwd'], 1, '/')).toBe(true);
    expect(plainValue(['db', 'pwd'], 2, '/hunter2')).toBe(false);
    expect(plainValue(['secret', 'dir'], 1, '/run')).toBe(true);
    expect(plainValue(['password'], 1, 'C:\\Users\\ada\\pass.txt')).toBe(true);
    expect(plainValue(['password'], 1, '/not a/path with blanks')).toBe(false);
  });
});
