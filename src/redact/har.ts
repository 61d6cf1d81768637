import { buildHar, type HarRedaction } from '../trace/export/har.js';
import { decodeQuery, splitQuery } from '../trace/export/query.js';
import type { OpenedTrace } from '../trace/import/opened.js';
import { type CompiledRules, compile } from './compile.js';
import { redactHeaders } from './header-values.js';
import { formatMarker, isMarker, MARKER_PREFIX } from './marker.js';
import { specificRule } from './specific.js';
import { redactText } from './values.js';
import { redactJson } from './walk.js';

/**
 * HAR export with redaction: the trace format builds the document (src/trace/export/har.ts) and asks for every
 * head, URL, body and event id to be redacted on its way in; this module answers with rules. Only a trace tapedeck
 * recorded is known to be redacted already, so a HAR file or an HTTP exchange capture loses its credentials here;
 * markers redact to themselves, so what a recording hid stays as it was hidden.
 */

/** How a HAR document is written. */
export interface HarOptions {
  /** The rules heads, URLs and bodies are redacted with; by default the built-in rules, as markers. */
  redact?: CompiledRules | undefined;
}

let builtIn: CompiledRules | undefined;

/** The built-in rules, compiled once. */
function builtInRules(): CompiledRules {
  builtIn ??= compile({ defaults: true, rules: [], mode: 'marker' });
  return builtIn;
}

/**
 * The HAR document of an HTTP trace, redacted. Fails with TapedeckError('input') for a trace that holds no HTTP
 * exchange (a stdio recording has no HTTP to show).
 *
 * @example
 * const trace = await openTrace('traces/remote.jsonl');
 * await writeFile('remote.har', await toHar(trace, 'traces/remote.jsonl'), { mode: 0o600 });
 * // With a project's rules on top of the built-in ones:
 * await toHar(trace, 'remote', { redact: compile({ defaults: true, rules: projectRules, mode: 'marker' }) });
 */
export function toHar(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  name = trace.meta.label,
  options: HarOptions = {},
): Promise<string> {
  return buildHar(trace, name, harRedaction(options.redact ?? builtInRules()));
}

/**
 * What the HAR export passes its values through, from compiled rules: text and JSON as in a trace, headers by
 * their rules, URLs query parameter by query parameter.
 *
 * @example harRedaction(rules).url('https://api.example/mcp?access_token=abc') // → '…?access_token=[REDACTED:…]'
 */
export function harRedaction(rules: CompiledRules): HarRedaction {
  return {
    text: (value) => redactText(value, rules),
    json: (value) => redactJson(value, rules),
    headers: (headers) => redactHeaders(headers, rules),
    url: (url) => redactUrl(url, rules),
  };
}

/**
 * The URL with the value rules applied to it as written and to each query parameter as decoded (a token behind
 * `%20` or `+` is still found), and a parameter whose name falls under a key rule (`access_token`) hidden whole.
 * A parameter that changed is written back encoded, its markers as they are.
 */
function redactUrl(url: string, rules: CompiledRules): string {
  const text = redactText(url, rules);
  const { query, pairs } = splitQuery(text);
  if (query === undefined) return text;
  const written = pairs
    .map(({ name, value }) => {
      const key = hideQueryPart(name, rules);
      if (value === undefined) return key;
      const decoded = decodeQuery(value);
      const rule = rules.keys.matchValue(decodeQuery(key), decoded);
      const hidden =
        rule !== undefined && decoded !== '' && !isMarker(decoded)
          ? formatMarker(specificRule(rule, decoded, rules), decoded, rules.style)
          : hideQueryPart(value, rules);
      return `${key}=${hidden}`;
    })
    .join('&');
  return `${text.slice(0, query.start)}${written}${text.slice(query.end)}`;
}

/** A query name or value, as written, with the value rules applied to its decoded form. */
function hideQueryPart(raw: string, rules: CompiledRules): string {
  const decoded = decodeQuery(raw);
  const hidden = redactText(decoded, rules);
  return hidden === decoded ? raw : encodeQuery(hidden);
}

/** Splits a text around its markers, keeping them. */
const MARKERS = /(\[REDACTED:[A-Za-z0-9_.:-]{1,80}\])/;

/** Percent-encodes a query part but leaves its markers readable (`[`, `:` and `]` pass in a query). */
function encodeQuery(text: string): string {
  return text
    .split(MARKERS)
    .map((piece) => (piece.startsWith(MARKER_PREFIX) ? piece : encodeURIComponent(piece)))
    .join('');
}
