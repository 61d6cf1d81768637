import { recordHttpSession } from '../../proxy/bridge/session.js';
import { recordStdioSession } from '../../proxy/session.js';
import { STDIO_PROXY_DEFAULTS } from '../../proxy/stdio.js';
import { redactArgv, summarize } from '../../redact/index.js';
import {
  recordingPathFor,
  removeStaleRecordings,
  type SettledRecording,
  settleRecording,
} from '../../sink/cassette-file.js';
import { DeferredSink } from '../../sink/deferred.js';
import { FileSink } from '../../sink/file.js';
import { deriveLabel, labelFromUrl } from '../../sink/naming.js';
import type { TraceSink } from '../../sink/sink.js';
import { newMeta } from '../../trace/meta.js';
import { type RuleFlags, redactionFrom } from '../flags/rules.js';
import type { UpstreamSpec } from '../flags/upstream.js';
import { type CliIo, say } from '../io.js';
import { holdSignals } from '../signals.js';

/**
 * `tapedeck run` in record and passthrough modes: the stdio recording proxy (or the stdio-to-HTTP bridge) in front
 * of the live server, recording the session aside and settling it onto the cassette when it is over (see
 * src/sink/cassette-file.ts: a probe never replaces a cassette, concurrent runs never interleave one).
 */

/** Where the live server is: a command to spawn, or a remote URL (record, passthrough and update need one). */
export type LiveSide = { kind: 'command'; argv: string[] } | { kind: 'upstream'; spec: UpstreamSpec };

const MAX_MESSAGE_BYTES = STDIO_PROXY_DEFAULTS.maxMessageBytes;

/**
 * Records one session into `cassette`; resolves to the server's exit code (the bridge's, for a remote server).
 *
 * @example const code = await recordInto('fixtures/s.jsonl', { kind: 'command', argv: ['node', 's.js'] }, {}, false, io);
 */
export async function recordInto(
  cassette: string,
  live: LiveSide,
  rules: RuleFlags,
  existed: boolean,
  io: CliIo,
): Promise<number> {
  const startedAt = Date.now();
  const { config, compiled, redactor } = redactionFrom(rules, io);
  await removeStaleRecordings(cassette);
  const recording = recordingPathFor(cassette);
  // Only once a message has crossed is anything written; a cassette is one file, never rotated.
  const sink = new DeferredSink(
    new FileSink({
      path: recording,
      redact: redactor,
      maxBytes: Number.MAX_SAFE_INTEGER,
      warn: (message) => say(io, message),
    }),
  );
  const redaction = summarize(config);
  if (live.kind === 'upstream') {
    const { url, transport } = live.spec;
    sink.start(
      newMeta({ label: labelFromUrl(url), url, transport: transport === 'sse' ? 'sse' : 'http', redaction }),
    );
  } else {
    const shown = [...redactArgv(live.argv, compiled)];
    sink.start(newMeta({ label: deriveLabel(shown), command: shown, redaction, transport: 'stdio' }));
  }
  const code = await proxy(live, sink);
  // A signal while the cassette is settled must not leave the recording half renamed.
  const held = holdSignals();
  try {
    say(
      io,
      settledLine(await settleRecording(recording, cassette, { startedAt, env: io.env }), cassette, existed),
    );
  } finally {
    held.release();
  }
  return code;
}

function settledLine(settled: SettledRecording, cassette: string, existed: boolean): string {
  const kept = existed ? `${cassette} is as it was` : `no cassette written to ${cassette}`;
  switch (settled.kind) {
    case 'nothing':
      return `nothing was recorded (no MCP message crossed): ${kept}`;
    case 'probe':
      return settled.kept
        ? `only server/discover was asked (a client's probe): ${kept}; its answer joins the session recorded next`
        : `no request was asked: ${kept}`;
    case 'written': {
      const n = settled.requests;
      const probe = settled.probe ? ", with the discovery its client's probe asked before it" : '';
      return `recorded ${n} request${n === 1 ? '' : 's'} into ${cassette}${probe}`;
    }
  }
}

/**
 * Runs the live server with nothing recorded; resolves to its exit code.
 *
 * @example const code = await passthrough({ kind: 'command', argv: ['node', 'server.js'] });
 */
export function passthrough(live: LiveSide): Promise<number> {
  const nothing: TraceSink = { start() {}, append() {}, close: async () => {} };
  return proxy(live, nothing);
}

async function proxy(live: LiveSide, sink: TraceSink): Promise<number> {
  if (live.kind === 'command') {
    return recordStdioSession(live.argv, sink, { maxMessageBytes: MAX_MESSAGE_BYTES, recordStderr: true });
  }
  const stop = new AbortController();
  // A signal ends the bridged session as stdin EOF does (the session is DELETEd, the end line written).
  const held = holdSignals(() => stop.abort());
  try {
    const { url, transport, headers } = live.spec;
    return await recordHttpSession(
      { url, transport, headers, signal: stop.signal, maxMessageBytes: MAX_MESSAGE_BYTES },
      sink,
    );
  } finally {
    held.release();
  }
}
