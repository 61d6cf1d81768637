import type { Command } from 'commander';
import { headerValueProblem, isHeaderName } from '../../proxy/http/headers.js';
import type { UpstreamTransport } from '../../upstream/types.js';
import { usageError } from '../errors.js';

/**
 * A live server reached over HTTP in place of a server command: `--upstream URL` with `--sse` and the repeatable
 * `--header 'Name: value'`, shared by `record --upstream … --stdio`, `verify --upstream` and `run --upstream`.
 */

/** The upstream flags as commander parses them. */
export interface UpstreamFlags {
  /** A URL as given, or as `record` parses it. */
  upstream?: string | URL;
  stdio?: boolean;
  sse?: boolean;
  header?: string[];
}

/** A --header flag that takes its secret from the environment, for help texts. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} syntax of --header
export const HEADER_EXAMPLE = "--header 'Authorization: Bearer ${TOKEN}'";

/** Where a live remote server is and how to talk to it, checked. */
export interface UpstreamSpec {
  url: string;
  transport: UpstreamTransport;
  headers: Record<string, string>;
}

/**
 * `--sse` and `--header` (each command declares `--upstream` itself, with its own help).
 *
 * @example upstreamOptions(program.command('verify').option('--upstream <url>', '…'))
 */
export function upstreamOptions(command: Command): Command {
  return command
    .option('--sse', 'with --upstream: the URL is a legacy SSE endpoint (GET stream + POST endpoint)')
    .option(
      '--header <header>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the help text shows the literal ${VAR} syntax
      "with --upstream: send this header, 'Name: value'; ${VAR} takes the value from the environment (repeatable)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
}

/**
 * Checks an upstream URL: absolute http(s), else a usage error naming it.
 *
 * @example upstreamUrl('http://127.0.0.1:3001/mcp') // → 'http://127.0.0.1:3001/mcp'
 */
export function upstreamUrl(value: string | URL): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`--upstream '${value}' is not a URL; expected e.g. http://127.0.0.1:3001/mcp`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--upstream '${value}' must be an http:// or https:// URL; got ${url.protocol}`);
  }
  return url.href;
}

/**
 * Reads `--header 'Name: value'` flags. `${VAR}` in a value is replaced by that environment variable at run time,
 * so a token need not appear on the command line (nor in shell history); a variable that is not set is a usage
 * error naming it, and so is a header without ':', with a name HTTP does not allow, or with a value holding a
 * character HTTP cannot carry (CR, LF, other controls; named, the value itself never shown: it is often a secret).
 *
 * @example parseHeaders(['Authorization: Bearer ${TOKEN}'], { TOKEN: 'abc' }) // → { Authorization: 'Bearer abc' }
 */
export function parseHeaders(
  values: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const flag of values) {
    const colon = flag.indexOf(':');
    if (colon === -1) {
      // The text may be a bare secret: name only its start.
      const start = flag.length > 12 ? `${flag.slice(0, 12)}…` : flag;
      throw usageError(
        `--header '${start}' has no ':'; expected 'Name: value', e.g. --header 'X-Team: blue'`,
      );
    }
    const name = flag.slice(0, colon).trim();
    if (!isHeaderName(name)) {
      throw usageError(
        `--header name '${name}' is not a valid HTTP header name; expected e.g. 'X-Team: blue'`,
      );
    }
    // Where each ${VAR} landed in the value: a bad character is blamed on its variable, never shown.
    const spans: { variable: string; start: number; end: number }[] = [];
    let shift = 0;
    const expanded = flag
      .slice(colon + 1)
      .replace(/\$\{([^}]*)\}/g, (match: string, variable: string, offset: number) => {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
          throw usageError(`--header ${name}: '\${${variable}}' is not an environment variable name`);
        }
        const found = env[variable];
        if (found === undefined) {
          throw usageError(`--header ${name}: the environment variable ${variable} is not set`);
        }
        spans.push({ variable, start: offset + shift, end: offset + shift + found.length });
        shift += found.length - match.length;
        return found;
      });
    const value = expanded.trim();
    const problem = headerValueProblem(value);
    if (problem !== undefined) {
      const at = problem.index + (expanded.length - expanded.trimStart().length);
      const source = spans.find((span) => at >= span.start && at < span.end)?.variable;
      const where = source === undefined ? 'its value' : `its value (from \${${source}})`;
      throw usageError(
        `--header ${name}: ${where} holds ${problem.what}, which an HTTP header cannot carry; expected ` +
          'one line of printable text (the value is not shown)',
      );
    }
    headers[name] = value;
  }
  return headers;
}

/**
 * The checked upstream of a command's flags, `${VAR}`s read from `env`.
 *
 * @example upstreamSpec({ upstream: 'http://127.0.0.1:3001/sse', sse: true, header: [] }, io.env) // → { url, transport: 'sse', headers: {} }
 */
export function upstreamSpec(
  flags: UpstreamFlags,
  env: Readonly<Record<string, string | undefined>>,
): UpstreamSpec | undefined {
  if (flags.upstream === undefined) {
    if (flags.sse || (flags.header ?? []).length > 0) {
      throw usageError(`${flags.sse ? '--sse' : '--header'} needs --upstream URL`);
    }
    return undefined;
  }
  return {
    url: upstreamUrl(flags.upstream),
    transport: flags.sse ? 'sse' : 'streamable',
    headers: parseHeaders(flags.header ?? [], env),
  };
}
