import type { HostVerdict } from './local-names.js';

/**
 * The words every listener refuses a request with when its `Host` or `Origin` fails the guard (local-names.ts
 * judges; this says why, in one table for the collector, `tapedeck view`, `replay --http`, `mcp --http` and the
 * recording proxy). A listener supplies only its own name, and the flag that lets another name in; how it frames
 * the refusal (a JSON-RPC error, a JSON body, a line of text, with its status) stays its own.
 */

/** How one listener is named in its refusals. */
export interface GuardWords {
  /** The listener as a sentence names it: `the collector`, `this recording proxy`, `this server`. */
  listener: string;
  /** The one port `Host` must name, for a listener that requires it (`tapedeck view`). */
  port?: number;
  /**
   * What lets a refused name in (`start it with --allow-host evil.example to allow it`), or undefined for a
   * listener no flag opens to other names.
   */
  allow?: (name: string) => string;
}

/** The names that always pass, as the refusals list them. */
const LOCAL = 'localhost, 127.0.0.1 and [::1]';

/**
 * Why a request is refused for the guard's verdict on its `Host` and `Origin`, or undefined when it passed. Each
 * message quotes the header as sent, says what the listener answers, and names the flag that would let it in.
 *
 * @example
 * hostRefusal({ kind: 'host', name: 'evil.example' }, { host: 'evil.example:7430' }, { listener: 'this server' })
 * // → "Host 'evil.example:7430' is not allowed: this server answers only localhost, 127.0.0.1 and [::1]"
 */
export function hostRefusal(
  verdict: HostVerdict,
  sent: { host?: string | undefined; origin?: string | undefined },
  words: GuardWords,
): string | undefined {
  const answers = `${words.listener} answers only ${LOCAL}${words.port === undefined ? '' : ` on port ${words.port}`}`;
  const allow = (name: string) =>
    words.allow === undefined ? '' : ` (${words.allow(name === '' ? 'NAME' : name)})`;
  switch (verdict.kind) {
    case 'ok':
      return undefined;
    case 'no-host':
      return `a request without a Host header was refused: ${answers}`;
    case 'host':
      return `Host '${sent.host}' is not allowed: ${answers}${allow(verdict.name)}`;
    case 'origin-invalid':
      return `Origin '${sent.origin}' is not an http or https origin: pages of other sites may not use ${words.listener}`;
    case 'origin':
      return (
        `Origin '${sent.origin}' is not ${words.listener}'s own origin (${verdict.own}): pages of other sites, ` +
        `and of other local ports, may not use it${allow(verdict.name)}`
      );
  }
}
