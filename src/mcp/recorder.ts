import { existsSync } from 'node:fs';
import type { Redactor } from '../redact/types.js';
import type { JsonObject } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import { Recording, type TraceTally, tallyTrace } from './recording.js';
import { processAlive, type TrajectoryStore } from './store.js';

/**
 * The one recording a `tapedeck mcp` server has at a time, and the rule for recordings a crash interrupted:
 *
 * - Every event is appended to `<name>.jsonl` before `record_event` answers; a `<name>.recording` marker beside it
 *   names the server process recording it. `stop_recording` writes the trace's `end` line and removes the marker.
 * - When a server finds a marker whose process is gone, it takes that recording over as its active one (the
 *   newest, if there are several): `record_event` appends to it, `stop_recording` saves it.
 * - `start_recording` with the name of a trace that has no `end` line continues it; with the name of a finished
 *   trajectory it starts that trajectory over; with another name while one is active it is an error.
 * - A server that exits (stdin closed, a signal) leaves its recording active on disk, to be taken over next time.
 */

export interface RecorderOptions {
  redact?: Redactor;
  /** Extra meta fields for new traces (the redaction summary). */
  meta?: Record<string, unknown>;
  now?: () => number;
  /** Where notes for people go (stderr in the CLI). */
  log?: (message: string) => void;
}

export interface StartResult {
  /** How many events the trajectory held already when it was continued, or undefined for a new one. */
  resumed: number | undefined;
}

export interface StopResult {
  name: string;
  events: number;
  path: string;
}

/**
 * @example
 * const recorder = new TrajectoryRecorder(new TrajectoryStore(dir));
 * recorder.start('my_session');
 * recorder.record({ method: 'tools/call', params: {} }, { result: {} }); // → 1
 * recorder.stop(); // → { name: 'my_session', events: 1, path: '…/my_session.jsonl' }
 */
export class TrajectoryRecorder {
  private active: Recording | undefined;
  private looked = false;

  constructor(
    private readonly store: TrajectoryStore,
    private readonly options: RecorderOptions = {},
  ) {}

  /** The name of the active recording, after taking over one a dead server left behind. */
  activeName(): string | undefined {
    this.adopt();
    return this.active?.name;
  }

  start(name: string): StartResult {
    this.adopt();
    const active = this.active;
    if (active !== undefined) {
      if (active.name === name) return { resumed: active.events };
      throw new Error(
        `a recording is already active: '${active.name}' (${active.events} event(s)); call stop_recording before starting '${name}'`,
      );
    }
    const path = this.store.tracePath(name);
    const marker = this.store.readMarker(name);
    if (marker !== undefined && marker.pid !== process.pid && processAlive(marker.pid)) {
      throw new Error(
        `'${name}' is being recorded by another tapedeck mcp server (pid ${marker.pid}); choose another name`,
      );
    }
    this.store.ensure();
    const tally = existsSync(path) ? tallyTrace(path) : undefined;
    let resumed: number | undefined;
    if (tally !== undefined && !tally.ended) {
      this.active = Recording.resume(path, name, tally, this.recordingOptions());
      resumed = tally.events;
    } else {
      if (tally !== undefined)
        this.options.log?.(`starting '${name}' over: it replaces the saved ${tally.events} event(s)`);
      this.active = Recording.create(path, name, this.recordingOptions());
    }
    this.store.writeMarker({ name, pid: process.pid, startedAt: new Date().toISOString() });
    return { resumed };
  }

  /** Appends one request/response pair to the active recording; returns the trajectory's event count. */
  record(request: JsonObject, response: Json): number {
    return this.require().append(request, response);
  }

  stop(): StopResult {
    const active = this.require();
    active.stop();
    this.active = undefined;
    this.store.removeMarker(active.name);
    return { name: active.name, events: active.events, path: active.path };
  }

  /** Lets go of the file without ending the recording: it stays active on disk for the next server. */
  close(): void {
    this.active?.close();
    this.active = undefined;
  }

  private require(): Recording {
    this.adopt();
    if (this.active === undefined)
      throw new Error('no recording is active: call start_recording with a name first');
    return this.active;
  }

  /** Once per server: takes over the newest recording whose server died, and drops markers of finished ones. */
  private adopt(): void {
    if (this.looked) return;
    this.looked = true;
    for (const marker of this.store.markers()) {
      if (marker.pid !== process.pid && processAlive(marker.pid)) continue;
      const path = this.store.tracePath(marker.name);
      let tally: TraceTally | undefined;
      try {
        tally = existsSync(path) ? tallyTrace(path) : undefined;
      } catch (err) {
        // A trace that cannot be read (a link planted in its place, no permission) is no recording to take over.
        this.options.log?.(`left the recording '${marker.name}' alone: ${(err as Error).message}`);
        continue;
      }
      if (tally === undefined || tally.ended) {
        this.store.removeMarker(marker.name);
        continue;
      }
      if (this.active !== undefined) continue;
      this.active = Recording.resume(path, marker.name, tally, this.recordingOptions());
      this.store.writeMarker({ name: marker.name, pid: process.pid, startedAt: marker.startedAt });
      this.options.log?.(
        `resumed the recording '${marker.name}' (${tally.events} event(s)) that an earlier server (pid ${marker.pid}) left active`,
      );
    }
  }

  private recordingOptions() {
    return {
      ...(this.options.redact ? { redact: this.options.redact } : {}),
      ...(this.options.meta ? { meta: this.options.meta } : {}),
      ...(this.options.now ? { now: this.options.now } : {}),
    };
  }
}
