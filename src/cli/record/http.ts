import { isLoopback } from '../../base/local-names.js';
import { describeFault } from '../../faults/records.js';
import type { ProxyNotice } from '../../proxy/http/context.js';
import { isConnectionHeader } from '../../proxy/http/headers.js';
import { HTTP_PROXY_LISTEN } from '../../proxy/http/listen-defaults.js';
import type { HttpProxy } from '../../proxy/http/server.js';
import { shownUrl, upstreamLabel } from '../../proxy/http/url.js';
import { redactText, summarize } from '../../redact/index.js';
import type { FileSink, TraceFileTarget } from '../../sink/file.js';
import { safeLabel } from '../../sink/naming.js';
import { newMeta } from '../../trace/meta.js';
import { usageError } from '../errors.js';
import { announceFaults, type FaultFlags, faultPlanOf, warnUnmatched } from '../flags/faults.js';
import type { LiveFlag } from '../flags/live.js';
import { type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { HEADER_EXAMPLE, parseHeaders } from '../flags/upstream.js';
import { type CliIo, say } from '../io.js';
import { type HttpRecordFlags, parseAllowHost } from './http-flags.js';
import { runListening, stopOnSignals } from './listening.js';

/** What `record --upstream` needs besides its own flags (shared with the stdio mode). */
export interface HttpRecordOptions extends HttpRecordFlags, RuleFlags, LiveFlag, FaultFlags {
  label?: string;
  maxBytes: number;
  maxFiles: number;
  maxMessageBytes: number;
}

/**
 * `tapedeck record --upstream URL`: runs the recording proxy until SIGINT or SIGTERM, then writes the `end` line
 * (reason `producer_shutdown`) and resolves to 0. `tracePath` turns the label into the trace file's path. The
 * trace file is created once the listener is up: a listener that cannot start leaves nothing behind.
 */
export async function recordHttp(
  options: HttpRecordOptions,
  tracePath: (label: string) => TraceFileTarget,
  io: CliIo,
): Promise<number> {
  const upstream = options.upstream!;
  const signals = stopOnSignals();
  try {
    // Checked (and ${VAR}s read) before anything starts; the values never reach the trace.
    const headers = parseHeaders(options.header ?? [], io.env);
    const framing = Object.keys(headers).find(isConnectionHeader);
    if (framing !== undefined) {
      throw usageError(
        `--header ${framing} cannot be set: each request sets it itself; give headers such as Authorization`,
      );
    }
    const redaction = redactionFrom(options, io);
    const { config, compiled } = redaction;
    // What the recorder says of the traffic (a fault on a resource, a warning) hides what the trace hides.
    const out = redactedIo(io, { compiled });
    const faults = await faultPlanOf(options, io);
    announceFaults(faults, out);
    const allowHosts = (options.allowHost ?? []).map((value) =>
      parseAllowHost(value, (note) => say(out, note)),
    );
    const shown = shownUrl(upstream.href);
    const label =
      options.label !== undefined
        ? safeLabel(redactText(options.label, compiled))
        : safeLabel(upstreamLabel(upstream));
    const listen = options.listen ?? HTTP_PROXY_LISTEN;
    const transport = /\/sse\/?$/.test(upstream.pathname) ? 'sse' : 'http';
    const start = async (sink: FileSink): Promise<HttpProxy> => {
      // Loaded for an HTTP recording only: a stdio recording (most of them) never needs it.
      const { startHttpProxy } = await import('../../proxy/http/server.js');
      return startHttpProxy({
        upstream,
        sink,
        // Started by the proxy once it listens: a port in use must not leave a trace file of nothing behind.
        meta: newMeta({ label, url: shown, transport, redaction: summarize(config) }),
        host: listen.host,
        port: listen.port,
        allowHosts,
        oauth: options.oauth ?? 'map',
        maxMessageBytes: options.maxMessageBytes,
        headers,
        onNotice: (notice) => say(out, noticeText(notice)),
        faults,
        onFault: (record) => say(out, `injected ${describeFault(record)}`),
      });
    };
    const recording = { label, shown, flags: options, tracePath, redaction, io, out, start };
    await runListening(recording, signals, (proxy) => warnIfReachable(proxy, headers, io));
    if (faults) warnUnmatched(faults, out);
    return 0;
  } finally {
    signals.release();
  }
}

/** A listener beyond loopback: who can reach it, and whose credentials they use. */
function warnIfReachable(proxy: HttpProxy, headers: Record<string, string>, io: CliIo): void {
  if (isLoopback(proxy.host)) return;
  const credentials =
    Object.keys(headers).length > 0
      ? `the headers --header adds (${Object.keys(headers).join(', ')})`
      : 'the credentials they send';
  say(
    io,
    `warning: listening on ${proxy.host}, which other machines can reach; requests still need a ` +
      `local or --allow-host Host header, and whoever gets through uses the upstream with ${credentials}`,
  );
}

/** The line for a proxy notice (see ProxyNotice); the first words say whether it needs the user. */
function noticeText(notice: ProxyNotice): string {
  if (notice.kind === 'oauth-browser') {
    return `note: OAuth sends the user's browser to the authorization server itself: ${notice.path}`;
  }
  if (notice.kind === 'oauth-bound') {
    return (
      `error: the upstream binds its tokens to the client (${notice.path}), which no proxy at another URL can ` +
      'present; OAuth cannot complete through this proxy. Record through the stdio bridge instead: ' +
      'tapedeck record --upstream URL --stdio, with the token the client would use given by --header'
    );
  }
  const why =
    notice.status === 401
      ? `a ${notice.status} Bearer challenge on ${notice.path}`
      : `a client read ${notice.path}`;
  return (
    `note: the upstream asks for OAuth (${why}): tapedeck names itself as the protected resource and maps the ` +
    "token's resource back to the upstream's URL; the flow is recorded with every token, code and secret as a " +
    `stable hash. A client with a token of its own can also pass it, or tapedeck can send one: ${HEADER_EXAMPLE}`
  );
}
