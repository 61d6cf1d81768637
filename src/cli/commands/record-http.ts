import { isIPv6 } from 'node:net';
import type { Command } from 'commander';
import type { ProxyNotice } from '../../proxy/http/context.js';
import { isConnectionHeader } from '../../proxy/http/headers.js';
import { HTTP_PROXY_LISTEN } from '../../proxy/http/listen-defaults.js';
import type { HttpProxy } from '../../proxy/http/server.js';
import { shownUrl, upstreamLabel } from '../../proxy/http/url.js';
import { redactText, summarize } from '../../redact/index.js';
import type { TraceFileTarget } from '../../sink/file.js';
import { safeLabel } from '../../sink/naming.js';
import { newMeta } from '../../trace/meta.js';
import { usageError } from '../errors.js';
import { holdSignals } from '../signals.js';
import { HEADER_EXAMPLE, parseHeaders } from './record-bridge.js';
import { type LiveFlag, recordingSink } from './record-live.js';
import { type RuleFlags, redactionFrom } from './redact.js';

/** The flags of `record --upstream`. */
export interface HttpRecordFlags {
  upstream?: URL;
  listen?: ListenAddress;
  allowHost?: string[];
  /** `--header 'Name: value'`: sent to the upstream with every request, in place of a client's header of that name. */
  header?: string[];
}

/** What `record --upstream` needs besides its own flags (shared with the stdio mode). */
export interface HttpRecordOptions extends HttpRecordFlags, RuleFlags, LiveFlag {
  label?: string;
  maxBytes: number;
  maxFiles: number;
  maxMessageBytes: number;
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
export function parseUpstream(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(
      `--upstream must be an http:// or https:// URL such as http://127.0.0.1:3001/mcp; got '${shownUrl(value)}'`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--upstream must be an http:// or https:// URL; got the scheme '${url.protocol}'`);
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
export function parseAllowHost(
  value: string,
  note: (message: string) => void = (message) => process.stderr.write(`tapedeck: ${message}\n`),
): string {
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
      parseUpstream,
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
    );
}

/** Help text for the HTTP mode, appended to `record --help`. */
export const HTTP_RECORD_HELP =
  '\n\nRecording a server reached over HTTP (Streamable HTTP or legacy SSE):\n' +
  '  tapedeck record --upstream https://mcp.example.com/mcp --out ./traces\n' +
  `  Clients then use http://${DEFAULT_LISTEN}/mcp (the upstream's path on the local listener). Everything else the\n` +
  '  server serves (OAuth metadata, /authorize, /token) passes through unchanged; credentials reach the server,\n' +
  '  never the trace. A client with a token keeps working, but an OAuth flow cannot complete through the proxy\n' +
  '  (clients check the resource the server names against the URL they use): give tapedeck a token to send,\n' +
  `  ${HEADER_EXAMPLE} (a \${VAR} reads the environment), and clients need none. The\n` +
  '  listener answers only Host and Origin localhost, 127.0.0.1 and [::1] unless\n' +
  '  --allow-host names more; binding another address with --listen warns: anyone who reaches it can use the\n' +
  '  server through it. Once listening, stderr says: tapedeck: recording <local URL> → <upstream> (trace: <file>)\n' +
  '  Ctrl-C (SIGINT) or SIGTERM stops it; open streams get a second to finish, then the trace is closed.';

/** Whether an address only this machine can reach. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * `tapedeck record --upstream URL`: runs the recording proxy until SIGINT or SIGTERM, then writes the `end` line
 * (reason `producer_shutdown`) and resolves to 0. `tracePath` turns the label into the trace file's path. The
 * trace file is created once the listener is up: a listener that cannot start leaves nothing behind.
 */
export async function recordHttp(
  options: HttpRecordOptions,
  tracePath: (label: string) => TraceFileTarget,
): Promise<number> {
  const upstream = options.upstream!;
  let stop: (() => void) | undefined;
  let signals = 0;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  // Signals from the start: one stops the proxy gracefully, a second cuts open streams at once.
  let hurry: (() => void) | undefined;
  const held = holdSignals(() => {
    signals += 1;
    if (signals === 1) stop?.();
    else hurry?.();
  });
  try {
    // Checked (and ${VAR}s read) before anything starts; the values never reach the trace.
    const headers = parseHeaders(options.header ?? []);
    const framing = Object.keys(headers).find(isConnectionHeader);
    if (framing !== undefined) {
      throw usageError(
        `--header ${framing} cannot be set: each request sets it itself; give headers such as Authorization`,
      );
    }
    const { config, compiled, redactor } = redactionFrom(options);
    const allowHosts = (options.allowHost ?? []).map((value) => parseAllowHost(value));
    const shown = shownUrl(upstream.href);
    const label =
      options.label !== undefined
        ? safeLabel(redactText(options.label, compiled))
        : safeLabel(upstreamLabel(upstream));
    const listen = options.listen ?? HTTP_PROXY_LISTEN;
    const file = {
      ...tracePath(label),
      maxBytes: options.maxBytes,
      maxFiles: options.maxFiles,
      redact: redactor,
    };
    const { sink, close } = await recordingSink(options, label, file);
    const transport = /\/sse\/?$/.test(upstream.pathname) ? 'sse' : 'http';
    let proxy: HttpProxy;
    try {
      // Loaded for an HTTP recording only: a stdio recording (most of them) never needs it.
      const { startHttpProxy } = await import('../../proxy/http/server.js');
      proxy = await startHttpProxy({
        upstream,
        sink,
        // Started by the proxy once it listens: a port in use must not leave a trace file of nothing behind.
        meta: newMeta({ label, url: shown, transport, redaction: summarize(config) }),
        host: listen.host,
        port: listen.port,
        allowHosts,
        maxMessageBytes: options.maxMessageBytes,
        headers,
        onNotice: (notice) => process.stderr.write(`tapedeck: warning: ${noticeText(notice)}\n`),
      });
    } catch (err) {
      await close();
      throw err;
    }
    if (!isLoopback(proxy.host)) {
      const credentials =
        Object.keys(headers).length > 0
          ? `the headers --header adds (${Object.keys(headers).join(', ')})`
          : 'the credentials they send';
      process.stderr.write(
        `tapedeck: warning: listening on ${proxy.host}, which other machines can reach; requests still need a ` +
          `local or --allow-host Host header, and whoever gets through uses the upstream with ${credentials}\n`,
      );
    }
    process.stderr.write(`tapedeck: recording ${proxy.url} → ${shown} (trace: ${sink.path})\n`);
    await stopped;
    hurry = () => void proxy.close(0);
    await proxy.close();
    await sink.close({ reason: 'producer_shutdown' });
    await close();
    return 0;
  } finally {
    held.release();
  }
}

/** The warning for a proxy notice (see ProxyNotice). */
function noticeText(notice: ProxyNotice): string {
  const why =
    notice.status === 401
      ? `a ${notice.status} Bearer challenge on ${notice.path}`
      : `a client read ${notice.path}`;
  return (
    `the upstream asks for OAuth (${why}): an MCP client that follows it checks the protected resource the ` +
    "upstream names against the URL it connected to, tapedeck's, and refuses it; and a token issued for " +
    "tapedeck's URL would not be accepted upstream. Give the client a token it already has (its Authorization " +
    `header passes through), or give tapedeck one to send: ${HEADER_EXAMPLE}`
  );
}
