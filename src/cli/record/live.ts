import { defaultDbPath, tokenPath } from '../../base/paths.js';
import { loadOrCreateToken, readToken } from '../../collector/home.js';
import type { LiveFileSink } from '../../sink/collector.js';
import { FileSink, type FileSinkOptions } from '../../sink/file.js';
import { usageError } from '../errors.js';
import { type LiveFlag, liveUrlOf, parseLiveUrl } from '../flags/live.js';
import { type CliIo, say } from '../io.js';

/**
 * What `record --live [URL]` needs: a live trace on a collector and a sink that writes the trace file and streams
 * every line to that live trace. Without a URL an in-process collector is started on 127.0.0.1 (a free port,
 * the usual database and token), so the viewer works with no `tapedeck serve` running; it stops with the recorder.
 */

export interface LiveRecordingOptions {
  /** The collector's base URL; undefined starts an in-process collector. */
  url?: string | undefined;
  /** The collector's write token; default `$TAPEDECK_HOME/token` (or ~/.tapedeck/token). */
  token?: string | undefined;
  /** The trace's label (the live trace is created with it before the first line). */
  label: string;
  /** What the plain recording would give its FileSink (path, rotation, redaction). */
  file: FileSinkOptions;
  /** Where the token and the in-process collector's database are found (TAPEDECK_HOME). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where the live view's one-per-kind warnings go (default stderr). */
  warn?: (message: string) => void;
}

export interface LiveRecording {
  /** The sink to record into, in place of a FileSink: it writes the file and tees every line to the collector. */
  sink: LiveFileSink;
  traceId: string;
  /** The collector's base URL. */
  collectorUrl: string;
  /** The web viewer's page for this recording: `<collector>/#trace=<id>`. */
  viewerUrl: string;
  /** One line for stderr, e.g. `tapedeck: live view at http://127.0.0.1:40113/#trace=…`. */
  notice: string;
  /** After the sink is closed: stops the in-process collector (nothing to do with a URL). */
  close(): Promise<void>;
}

/**
 * Prepares a live recording. Fails (before anything is recorded) when the collector cannot be reached or refuses
 * the token; once recording, a collector that goes away only costs the live view, never the file.
 *
 * @example
 * const live = await startLiveRecording({ url: liveUrlOf(options), label, file: { path, redact }, env: io.env });
 * io.stderr.write(`${live.notice}\n`);
 * live.sink.start(meta); … await live.sink.close({ reason: 'process_exit' }); await live.close();
 */
export async function startLiveRecording(options: LiveRecordingOptions): Promise<LiveRecording> {
  const env = options.env;
  let url = options.url;
  let token = options.token;
  let stop = async () => {};
  if (url === undefined) {
    token ??= loadOrCreateToken(tokenPath(env));
    // Loaded only when used: the collector brings SQLite and an HTTP framework, which a plain recording
    // (every stdio session an MCP client starts) should not pay for at startup.
    const { startCollector } = await import('../../collector/server.js');
    const collector = await startCollector({ dbPath: defaultDbPath(env), token, port: 0 });
    url = collector.url;
    stop = () => collector.close();
  } else {
    url = parseLiveUrl(url);
    // A team token (tapedeck token create) comes in the environment; else the collector's own token file.
    token ??= env.TAPEDECK_TOKEN?.trim() || readToken(tokenPath(env));
    if (token === undefined) {
      throw usageError(
        `record --live ${url} needs the collector's token: set TAPEDECK_TOKEN to a team token (tapedeck token create), ` +
          `or use the token in ${tokenPath(env)} on the collector's machine (set TAPEDECK_HOME to the folder that holds it)`,
      );
    }
  }
  try {
    // Loaded with --live only, like the collector above.
    const { createLiveTrace } = await import('../../sink/collector-client.js');
    const trace = await createLiveTrace({ url, token }, options.label);
    const { LiveFileSink } = await import('../../sink/collector.js');
    const sink = new LiveFileSink({
      ...options.file,
      collector: {
        url,
        token,
        traceId: trace.id,
        ...(options.warn === undefined ? {} : { warn: options.warn }),
      },
    });
    const inProcess = options.url === undefined ? ' (served by this recorder while it runs)' : '';
    return {
      sink,
      traceId: trace.id,
      collectorUrl: url,
      viewerUrl: trace.url,
      notice: `tapedeck: live view at ${trace.url}${inProcess}`,
      close: stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The sink a recording writes to, and what to do once it is closed. */
export interface RecordingSink {
  sink: FileSink;
  /** After the sink is closed: stops a collector started for `--live` (nothing to do otherwise). */
  close(): Promise<void>;
}

/**
 * The sink of a recording: a FileSink, or with `--live` one that also streams every line to a collector for the
 * web viewer (the notice saying where to watch goes to stderr).
 *
 * @example const { sink, close } = await recordingSink(options, label, { path, redact }, io); … await sink.close(info); await close();
 */
export async function recordingSink(
  flag: LiveFlag,
  label: string,
  file: FileSinkOptions,
  io: CliIo,
): Promise<RecordingSink> {
  if (flag.live === undefined) return { sink: new FileSink(file), close: async () => {} };
  const live = await startLiveRecording({
    url: liveUrlOf(flag),
    label,
    file,
    env: io.env,
    warn: (message) => say(io, message),
  });
  io.stderr.write(`${live.notice}\n`);
  return { sink: live.sink, close: () => live.close() };
}
