import { isIPv6 } from 'node:net';
import type { Command } from 'commander';
import { HTTP_PROXY_LISTEN } from '../../proxy/http/listen-defaults.js';
import { shownUrl } from '../../proxy/http/url.js';
import { usageError } from '../errors.js';
import { HEADER_EXAMPLE, upstreamOptions } from '../flags/upstream.js';

/**
 * The flags only `record` has for a server reached over HTTP: `--upstream` (checked as it is parsed), `--listen`,
 * `--allow-host`, and `--stdio` for the bridge; their help.
 */

/** The flags of `record --upstream`. */
export interface HttpRecordFlags {
  upstream?: URL;
  listen?: ListenAddress;
  allowHost?: string[];
  /** `--oauth map|passthrough`: whether the proxy stands in for the upstream in OAuth (default map). */
  oauth?: 'map' | 'passthrough';
  /** `--header 'Name: value'`: sent to the upstream with every request, in place of a client's header of that name. */
  header?: string[];
}

export interface ListenAddress {
  host: string;
  port: number;
}

const DEFAULT_LISTEN = `${HTTP_PROXY_LISTEN.host}:${HTTP_PROXY_LISTEN.port}`;

/**
 * Parses `--upstream`: an absolute http(s) URL.
 *
 * @example parseUpstream('http://127.0.0.1:3001/mcp').pathname === '/mcp'
 */
export function parseUpstream(value: string, flag = '--upstream'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const example = flag === '--upstream' ? 'http://127.0.0.1:3001/mcp' : 'https://api.anthropic.com';
    throw usageError(
      `${flag} must be an http:// or https:// URL such as ${example}; got '${shownUrl(value)}'`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`${flag} must be an http:// or https:// URL; got the scheme '${url.protocol}'`);
  }
  return url;
}

/**
 * Parses `--listen HOST:PORT` (IPv6 in brackets: `[::1]:7430`); port 0 picks a free one.
 *
 * @example parseListen('127.0.0.1:0') // { host: '127.0.0.1', port: 0 }
 */
export function parseListen(value: string): ListenAddress {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):(\d+)$/.exec(value.trim());
  if (!match) throw usageError(`--listen must be HOST:PORT such as ${DEFAULT_LISTEN}; got '${value}'`);
  const port = Number(match[2]);
  if (port > 65535) throw usageError(`--listen port must be between 0 and 65535; got ${match[2]}`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/**
 * Parses `--oauth`: `map` or `passthrough`.
 *
 * @example parseOAuthMode('passthrough') // → 'passthrough'
 */
export function parseOAuthMode(value: string): 'map' | 'passthrough' {
  if (value === 'map' || value === 'passthrough') return value;
  throw usageError(`--oauth must be map or passthrough; got '${value}'`);
}

/** A DNS name (labels of letters, digits, `-` and `_`, dot-separated) or an IPv4 address. */
const HOST_NAME =
  /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/**
 * Parses one `--allow-host`: `*`, a host name or IP address, optionally with a port (the check is by name, so the
 * port is dropped), or a URL, whose host is taken — `note` says so. Returns the name as a `Host` header gives it
 * (IPv6 in brackets).
 *
 * @example parseAllowHost('MCP.example.com:7430') // → 'mcp.example.com'
 * @example parseAllowHost('https://mcp.example.com/mcp') // → 'mcp.example.com', noting it
 */
export function parseAllowHost(value: string, note: (message: string) => void): string {
  const text = value.trim();
  if (text === '*') return '*';
  if (text.includes('*')) {
    throw usageError(
      `--allow-host takes * alone (any host) or one exact name, not a pattern; got '${value}': give each name its own --allow-host`,
    );
  }
  const refuse = () =>
    usageError(
      `--allow-host must be a host name such as mcp.example.com, optionally with a port (mcp.example.com:7430), ` +
        `or * for any; got '${value}'`,
    );
  let authority = text;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw refuse();
    }
    if (url.host === '') throw refuse();
    authority = url.host;
    note(`--allow-host ${text}: a URL; allowing its host name ${url.hostname.toLowerCase()}`);
  }
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(authority);
  let name: string;
  let port: string | undefined;
  if (bracketed !== null) {
    if (!isIPv6(bracketed[1]!)) throw refuse();
    name = `[${bracketed[1]!.toLowerCase()}]`;
    port = bracketed[2];
  } else if (isIPv6(authority)) {
    name = `[${authority.toLowerCase()}]`;
  } else {
    const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(authority);
    if (plain === null || plain[1]!.length > 253 || !HOST_NAME.test(plain[1]!)) throw refuse();
    name = plain[1]!.toLowerCase();
    port = plain[2];
  }
  if (port !== undefined && Number(port) > 65535) {
    throw usageError(`--allow-host port must be between 0 and 65535; got ${port} in '${value}'`);
  }
  return name;
}

/** Adds `--upstream`, `--listen` and `--allow-host` to `record`. */
export function addHttpRecordFlags(command: Command): Command {
  return command
    .option(
      '--upstream <url>',
      'record an MCP server reached over HTTP: listen locally and forward to this URL (no server command)',
      (value: string) => parseUpstream(value),
    )
    .option(
      '--listen <host:port>',
      `with --upstream: where clients connect (default ${DEFAULT_LISTEN}; port 0 picks a free one)`,
      parseListen,
    )
    .option(
      '--allow-host <name>',
      'with --upstream: also answer requests whose Host or Origin is this name (repeatable; * for any)',
      // Checked here, taken apart when the proxy starts (a URL's note would come before any usage error).
      (value: string, previous: string[] | undefined) => {
        parseAllowHost(value, () => {});
        return [...(previous ?? []), value];
      },
    )
    .option(
      '--oauth <mode>',
      'with --upstream: map (default) stands in for the upstream in OAuth and records the flow; passthrough forwards OAuth as it is',
      parseOAuthMode,
    );
}

/**
 * Adds `--stdio`, `--sse` and the repeatable `--header` (not `--upstream`, which addHttpRecordFlags declares).
 *
 * @example addBridgeFlags(addHttpRecordFlags(program.command('record')))
 */
export function addBridgeFlags(command: Command): Command {
  command.option('--stdio', 'with --upstream: be a stdio server for the client and bridge it to the URL');
  return upstreamOptions(command);
}

/** Help text for the HTTP mode, appended to `record --help`. */
export const HTTP_RECORD_HELP =
  '\n\nRecording a server reached over HTTP (Streamable HTTP or legacy SSE):\n' +
  '  tapedeck record --upstream https://mcp.example.com/mcp --out ./traces\n' +
  `  Clients then use http://${DEFAULT_LISTEN}/mcp (the upstream's path on the local listener). Everything else the\n` +
  '  server serves passes through; credentials reach the server, never the trace. OAuth completes through the\n' +
  "  proxy: its protected-resource metadata names the proxy, and the token's resource is mapped back to the\n" +
  '  upstream, so the upstream gets tokens for its own URL; the flow is recorded with its secrets hashed. Or\n' +
  `  give tapedeck a token to send, ${HEADER_EXAMPLE} (a \${VAR} reads the environment). The\n` +
  '  listener answers only Host and Origin localhost, 127.0.0.1 and [::1] unless\n' +
  '  --allow-host names more; binding another address with --listen warns: anyone who reaches it can use the\n' +
  '  server through it. Once listening, stderr says: tapedeck: recording <local URL> → <upstream> (trace: <file>)\n' +
  '  Ctrl-C (SIGINT) or SIGTERM stops it; open streams get a second to finish, then the trace is closed.';
