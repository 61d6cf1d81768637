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
  'arn',
]);

/**
 * Last words of names that are about a secret rather than the secret: its rules (`password_policy`), the form field
 * that asks for it (`passwordField`), what it cost (`token_usage`, an LLM's token counts), where it is kept
 * (`secretKeyRef`, `secret_store`), and phrases whose first word only sounds like one (`secret_santa`). The name steps
 * aside for any value under them, objects too, which are then walked key by key like any other.
 */
const ABOUT_WORDS = new Set([
  'policy',
  'policies',
  'rule',
  'rules',
  'requirement',
  'requirements',
  'strength',
  'complexity',
  'validation',
  'field',
  'fields',
  'input',
  'label',
  'placeholder',
  'descriptor',
  'selector',
  'schema',
  'question',
  'usage',
  'usages',
  'budget',
  'estimate',
  'cost',
  'price',
  'stats',
  'statistics',
  'metrics',
  'details',
  'total',
  'totals',
  'ref',
  'reference',
  'store',
  'manager',
  'santa',
  'sauce',
  'agent',
  'garden',
  'menu',
  'recipe',
  'ingredient',
  'mission',
  'society',
]);

/** An Amazon resource name: it names a secret (`arn:aws:secretsmanager:…:secret:prod/db-AbCdEf`), it is not one. */
const ARN = /^arn:aws[a-z-]{0,16}:[a-z0-9-]{1,64}:[a-z0-9-]{0,32}:[0-9]{0,12}:\S{1,1024}$/;

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
  if (ARN.test(trimmed)) return true;
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

/**
 * True when a name is about a secret rather than the secret, by its last word (see ABOUT_WORDS): `token_usage`,
 * `password_policy`, `passwordField`, `secret_santa`. Only a word after the rule's own counts: `usage_token` is a token.
 *
 * @example aboutTheSecret(['token', 'usage'], 1) // true; aboutTheSecret(['usage', 'token'], 2) // false
 */
export function aboutTheSecret(words: readonly string[], ruleEnd: number): boolean {
  return ruleEnd < words.length && ABOUT_WORDS.has(words.at(-1) ?? '');
}

/**
 * True when `value` of any JSON type, under a name a built-in rule matched, is plainly not a secret: the name is
 * about the secret (aboutTheSecret); a string as {@link plainValue} says; a number or a boolean, or an object or
 * array (of counts), under a name ending in a word of quantity or setting (`token_count`, `password_min_length`,
 * `auth_enabled`). A number or boolean under the secret's own name (`"password": 123456`, `"pin_code": 4242`) is
 * hidden like a string.
 *
 * @example plainUnder(['token', 'count'], 1, 317) // true; plainUnder(['password'], 1, 123456) // false
 */
export function plainUnder(words: readonly string[], ruleEnd: number, value: unknown): boolean {
  if (aboutTheSecret(words, ruleEnd)) return true;
  if (typeof value === 'string') return plainValue(words, ruleEnd, value);
  if (value === null || value === undefined) return false;
  return ruleEnd < words.length && QUANTITY_WORDS.has(words.at(-1) ?? '');
}
