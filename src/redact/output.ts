import type { Json } from '../trace/types.js';
import { type CompiledRules, compile } from './compile.js';
import { connShown } from './session.js';
import { hideInJson, hideInString } from './walk.js';

/**
 * Redaction of everything tapedeck writes from traffic besides the trace: what verify, replay, run, diff and scan
 * print and report (text, JUnit, GitHub annotations, JSON, SARIF), stderr notices (a fault injected on a resource
 * whose URI holds a token, a replay miss quoting a request), the one line of a failure. The rules are the trace's
 * own — the same compiled setup a recording would use, markers and stable hashes alike — so a value reads the same
 * in a report as in the trace beside it.
 *
 * Values are redacted as data before they become text where the data is at hand (a live answer, a request), so a
 * key or a name field can hide a value a text rule would not know, and a secret is hidden before any shortening
 * could cut it into pieces no rule knows; text is redacted again as it is written, for what came as text.
 */
export interface OutputRedaction {
  readonly compiled: CompiledRules;
  /** Free text: a stderr line, a report's message or details. Value rules, JSON inside walked with key rules. */
  text(text: string): string;
  /** A JSON value from traffic, not a whole message: key, name/value and value rules (no path rules). */
  json(value: Json): Json;
  /**
   * A JSON-RPC message, or a part of one rooted as a message is (`{ result }`, `{ error }`, `{ method, params }`):
   * path rules see it from `$`, as they saw the trace.
   */
  message(value: Json): Json;
  /** A connection as a trace names it: a session id kept as its stable hash, a recorder's own id (`h1`) as it is. */
  conn(conn: string): string;
}

/**
 * The output redaction for compiled rules (a recording's, or a command's own from its rule flags).
 *
 * @example outputRedaction(compile({ defaults: true, rules: [], mode: 'marker' })).text('key=ghp_…') // 'key=[REDACTED:github-token]'
 */
export function outputRedaction(compiled: CompiledRules): OutputRedaction {
  return {
    compiled,
    text: (text) => hideInString(text, compiled),
    json: (value) => hideInJson(value, compiled, { keyed: true, paths: false }),
    message: (value) => hideInJson(value, compiled, { keyed: true }),
    conn: (conn) => connShown(conn, compiled),
  };
}

let builtIn: OutputRedaction | undefined;

/**
 * The built-in rules as markers: for text written where no setup was loaded (a failure before a command read its
 * flags) and for library callers that give none.
 *
 * @example builtInOutputRedaction().text(message)
 */
export function builtInOutputRedaction(): OutputRedaction {
  builtIn ??= outputRedaction(compile({ defaults: true, rules: [], mode: 'marker' }));
  return builtIn;
}
