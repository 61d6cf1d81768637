import type { FileSink, FileSinkOptions, TraceFileTarget } from '../../sink/file.js';
import type { LiveFlag } from '../flags/live.js';
import type { Redaction } from '../flags/rules.js';
import { type CliIo, type RedactedIo, say } from '../io.js';
import { holdSignals } from '../signals.js';
import { recordingSink } from './live.js';

/** A listening recorder (`record --upstream`, `record --llm`) as the stop sequence sees it. */
export interface ListeningProxy {
  readonly url: string;
  /** Stops accepting; `0` cuts open streams at once instead of letting them finish. */
  close(graceMs?: number): Promise<void>;
}

/** What a listening recording is made of once its flags are read. */
export interface ListeningRecording<P extends ListeningProxy> {
  label: string;
  /** The upstream as the user may see it (no credentials). */
  shown: string;
  flags: LiveFlag & { maxBytes: number; maxFiles: number };
  tracePath: (label: string) => TraceFileTarget;
  redaction: Pick<Redaction, 'redactor'>;
  io: CliIo;
  /** `io` with what is said of the traffic redacted as the trace is. */
  out: RedactedIo;
  /** Starts the proxy on the sink; a start that throws closes the sink and rethrows. */
  start(sink: FileSink): Promise<P>;
}

/**
 * Holds SIGINT / SIGTERM / SIGHUP from the start of a listening recording: the first signal stops it gracefully,
 * a second cuts open streams at once.
 */
export function stopOnSignals(): { stopped: Promise<void>; hurry(cut: () => void): void; release(): void } {
  let stop: (() => void) | undefined;
  let cut: (() => void) | undefined;
  let signals = 0;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const held = holdSignals(() => {
    signals += 1;
    if (signals === 1) stop?.();
    else cut?.();
  });
  return {
    stopped,
    hurry: (then) => {
      cut = then;
    },
    release: () => held.release(),
  };
}

/**
 * Opens the trace (file, or file plus collector with `--live`), starts the proxy, says where it records, and on
 * `stopped` closes the proxy, then the trace with reason `producer_shutdown`. The trace file is created once the
 * listener is up: a listener that cannot start leaves nothing behind.
 */
export async function runListening<P extends ListeningProxy>(
  recording: ListeningRecording<P>,
  signals: ReturnType<typeof stopOnSignals>,
  warnFor: (proxy: P) => void,
): Promise<void> {
  const { label, io, out, flags } = recording;
  const file: FileSinkOptions = {
    ...recording.tracePath(label),
    maxBytes: flags.maxBytes,
    maxFiles: flags.maxFiles,
    redact: recording.redaction.redactor,
    warn: (message: string) => say(out, message),
  };
  const { sink, close } = await recordingSink(flags, label, file, io);
  let proxy: P;
  try {
    proxy = await recording.start(sink);
  } catch (err) {
    await close();
    throw err;
  }
  warnFor(proxy);
  say(out, `recording ${proxy.url} → ${recording.shown} (trace: ${sink.path})`);
  await signals.stopped;
  signals.hurry(() => void proxy.close(0));
  await proxy.close();
  await sink.close({ reason: 'producer_shutdown' });
  await close();
}
