import { defaultOAuthFolder } from '../../proxy/bridge/oauth-store.js';
import { redactText, summarize } from '../../redact/index.js';
import type { TraceFileTarget } from '../../sink/file.js';
import { labelFromUrl, safeLabel } from '../../sink/naming.js';
import { newMeta } from '../../trace/meta.js';
import type { LiveFlag } from '../flags/live.js';
import { type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type UpstreamFlags, upstreamSpec } from '../flags/upstream.js';
import { type CliIo, say } from '../io.js';
import { holdSignals } from '../signals.js';
import { recordingSink } from './live.js';

/**
 * `tapedeck record --upstream URL --stdio`: a stdio MCP server for a stdio-only client that is really a remote
 * Streamable HTTP (or, with `--sse`, legacy SSE) server, recording the session.
 */

export interface RecordBridgeOptions extends RuleFlags, UpstreamFlags, LiveFlag {
  upstream: string | URL;
  label?: string | undefined;
  /** The trace file, or how to name it from the label (record's --out / --file resolution). */
  path: string | ((label: string) => TraceFileTarget);
  maxBytes?: number | undefined;
  maxFiles?: number | undefined;
  maxMessageBytes?: number | undefined;
  /** Don't print where the trace goes. */
  quiet?: boolean | undefined;
}

/**
 * The whole `record --upstream URL --stdio` run: check the flags, start the trace (0600, redacted like every
 * recording: the Authorization header and the URL's secrets are hidden), bridge stdio to the URL until stdin ends
 * or a signal arrives, write the end line. Resolves to the exit code.
 *
 * @example const code = await recordBridge({ upstream: 'http://127.0.0.1:3001/mcp', path: 'session.jsonl', header: ['Authorization: Bearer ${TOKEN}'] }, io);
 */
export async function recordBridge(options: RecordBridgeOptions, io: CliIo): Promise<number> {
  // Everything that can fail on the user's input fails here, before a file is created or a request sent.
  const spec = upstreamSpec(options, io.env)!;
  const { config, compiled, redactor } = redactionFrom(options, io);
  // What the recorder says of the traffic (a fault on a resource, a warning) hides what the trace hides.
  const out = redactedIo(io, { compiled });
  const label =
    options.label !== undefined ? safeLabel(redactText(options.label, compiled)) : labelFromUrl(spec.url);
  const target = typeof options.path === 'string' ? { path: options.path } : options.path(label);
  const file = {
    ...target,
    redact: redactor,
    warn: (message: string) => say(out, message),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.maxFiles !== undefined ? { maxFiles: options.maxFiles } : {}),
  };
  const { sink, close } = await recordingSink(options, label, file, io);
  sink.start(
    newMeta({
      label,
      transport: spec.transport === 'sse' ? 'sse' : 'http',
      url: spec.url,
      redaction: summarize(config),
    }),
  );
  if (options.quiet !== true) say(out, `recording to ${sink.path}`);
  const stop = new AbortController();
  // A signal ends the session as stdin EOF does: the session is DELETEd and the end line written.
  const held = holdSignals(() => stop.abort());
  try {
    // Loaded here, not with the command: a stdio recording (most of them) never needs the HTTP client side.
    const { recordHttpSession } = await import('../../proxy/bridge/session.js');
    return await recordHttpSession(
      {
        url: spec.url,
        transport: spec.transport,
        headers: spec.headers,
        signal: stop.signal,
        maxMessageBytes: options.maxMessageBytes,
        // A sign-in is kept for the next recording against the same URL (0600, in a 0700 folder).
        oauth: { folder: defaultOAuthFolder(io.env) },
      },
      sink,
    );
  } finally {
    held.release();
    await close();
  }
}
