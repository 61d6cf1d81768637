/**
 * Values a built-in key rule steps aside for. The key rules hide by name alone, and environment dumps (a server's
 * `get-env` tool, `env` output, a `.env` file) are full of names that hold a credential word without holding a
 * credential: `PWD=/home/me/project` (the working directory, not a password), `AUTH_ENABLED=true`, `TOKEN_TTL=3600`,
 * `SSH_AUTH_SOCK=/tmp/ssh-…/agent.1`, `GITHUB_TOKEN_URL=https://…`, `SECRET_NAME=prod-db`. Hiding those buries the
 * real findings of `scan` in noise and takes paths and settings out of a trace for nothing.
 *
 * The choice is made by the value's shape together with the name's shape, never by the value alone:
 * - a switch (`true`, `false`, `yes`, `no`, `on`, `off`, `none`, `null`) is one bit of a setting under any name —
 *   a JSON boolean under a secret-named key is already kept, its string form is no different;
 * - an absolute path (`/a/b`, `~/a`, `C:\a`) is the working directory under `PWD` (any path, `/` too);
 *   with two segments or more it is a location under any name (`GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json`);
 *   a one-segment path (`/run`) only under a name that goes on past its credential word (`SECRET_DIR=/run`), since
 *   `password=/hunter2` could be a password;
 * - a number with an optional unit (`3600`, `30s`) only when the name ends in a word of quantity or setting
 *   (`TOKEN_TTL`, `PASSWORD_MIN_LENGTH`, `COOKIE_SECURE`) — `PASSWORD=123456` and `SECRET_CODE=424242` stay hidden;
 * - a URL only when the name ends in a word for an address (`GITHUB_TOKEN_URL`, `TOKEN_ENDPOINT`);
 * - one short word (`oauth2`, `prod-db`) only when the name ends in a word that says what kind of thing the secret is
 *   (`AUTH_TYPE`, `SECRET_NAME`, `AUTH_METHOD`).
 * A value stepped over still gets every value rule: a provider token, a JWT, a password inside a URL or a
 * secret-named query parameter in it is hidden all the same. Rules a user writes never step aside.
 */

/** One bit of a setting, as environment variables and config files spell it. */
const SWITCHES = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'none', 'null', 'undefined']);

/** Last words of names whose value is a count, a size, a duration or a flag about a secret, not the secret. */
const QUANTITY_WORDS = new Set([
  'ttl',
  'timeout',
  'length',
  'len',
  'size',
  'max',
  'min',
  'limit',
  'count',
  'expiry',
  'expires',
  'expiration',
  'lifetime',
  'age',
  'interval',
  'retries',
  'attempts',
  'rounds',
  'bits',
  'port',
  'version',
  'level',
  'secure',
  'enabled',
  'disabled',
  'required',
  'days',
  'hours',
  'minutes',
  'seconds',
  'ms',
]);

/** Last words of names whose value is where a secret is asked for or checked. */
const ADDRESS_WORDS = new Set(['url', 'uri', 'endpoint', 'issuer', 'host', 'server', 'domain']);

/** Last words of names whose value says what kind of secret is used, or which one. */
const KIND_WORDS = new Set([
  'name',
  'type',
  'mode',
  'method',
  'kind',
  'scheme',
  'provider',
  'strategy',
  'format',
]);

/** The shell's working-directory variables, as whole names: `PWD` is no password. */
const WORKING_DIRECTORY = new Set(['pwd', 'oldpwd']);

/** `/a/b`, `~/a`, `./a`, `C:\a\b`: path characters only, no blanks; captures the part after the root. */
const PATH = /^(?:~?\/|\.{1,2}\/|[A-Za-z]:[\\/])([A-Za-z0-9._@+,=~\\/-]*)$/;
const NUMBER = /^-?[0-9]{1,12}(?:\.[0-9]{1,6})?[a-z]{0,2}$/i;
const URL_VALUE = /^[a-z][a-z0-9+.-]{1,15}:\/\/\S+$/i;
const WORD = /^[A-Za-z0-9._/:-]{1,64}$/;

/** How many segments a path's part after its root has (`home/me` → 2; a trailing separator adds none). */
function segments(rest: string): number {
  return rest.split(/[\\/]/).filter((part) => part !== '').length;
}

/**
 * True when `value`, under a key named by `words` (from splitKeyWords) that a built-in rule matched at word
 * `ruleEnd` (the index after the rule's last word), is plainly not a secret. See the file comment for the choice.
 *
 * @example plainValue(['pwd'], 1, '/home/me/project') // true
 * @example plainValue(['db', 'pwd'], 2, 'hunter2') // false
 */
export function plainValue(words: readonly string[], ruleEnd: number, value: string): boolean {
  const trimmed = value.trim();
  if (trimmed === '') return false;
  if (SWITCHES.has(trimmed.toLowerCase())) return true;
  const last = words.at(-1) ?? '';
  const trailing = ruleEnd < words.length;
  const path = PATH.exec(trimmed);
  if (path !== null) {
    if (WORKING_DIRECTORY.has(words.join(''))) return true;
    const count = segments(path[1]!);
    return count >= 2 || (count === 1 && trailing);
  }
  if (!trailing) return false;
  if (QUANTITY_WORDS.has(last)) return NUMBER.test(trimmed) || SWITCHES.has(trimmed.toLowerCase());
  if (ADDRESS_WORDS.has(last)) return URL_VALUE.test(trimmed);
  if (KIND_WORDS.has(last)) return WORD.test(trimmed);
  return false;
}
