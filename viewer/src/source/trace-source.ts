import type { TraceModel } from '../data/model.js';
import type { Remote } from '../route.js';

/**
 * Where the viewer's traces come from, behind one interface so the views never ask how they arrived:
 * - `report`: a self-contained report, each trace embedded in the page (report.ts);
 * - `served`: the files `tapedeck view` serves beside the page (served.ts);
 * - `local`: files the user dropped on the page or picked (local.ts);
 * - `collector`: the collector's REST API for its list and finished traces, its websocket for traces still being
 *   recorded (collector.ts).
 * The page picks one when it loads (boot.ts) and keeps it; files the user opens are added beside what is shown by a
 * local source, on any page the source lets open files.
 *
 * Reading goes into a TraceModel: sources hand it trace lines in batches as they arrive, and the views re-read the
 * model when it says it changed. A followed trace is part of that model too: its SourceModel carries a FollowState
 * (status, snapshot and new lines, where a reconnect resumes, dropped lines).
 */
export interface TraceSource {
  readonly kind: SourceKind;
  readonly capabilities: SourceCapabilities;
  /**
   * The traces this source offers to pick from, newest first, narrowed by `query` where the source searches
   * (capabilities.search); undefined when it offers none (a report, or a page with no collector behind it).
   * Rejects with a message fit to show when the list cannot be read.
   */
  list(query?: TraceQuery): Promise<TraceListing[] | undefined>;
  /**
   * Reads traces into `model`: the source's own (report, served, local), or the listed trace `ref` names
   * (collector), followed while it is still being recorded. Failures become lines in `model.failures`; `ready`
   * never rejects.
   */
  open(model: TraceModel, ref?: TraceRef): Opened;
}

export type SourceKind = 'report' | 'served' | 'local' | 'collector';

export interface SourceCapabilities {
  /** Has traces of its own to open as the page loads (else the page starts at its home screen). */
  readonly own: boolean;
  /** Offers a list of traces, each opened by a reference (`#/trace/<id>`, `#/share/<id>` links). */
  readonly list: boolean;
  /** Follows a trace while it is recorded: the snapshot, then each new line, resuming after a reconnect. */
  readonly follow: boolean;
  /** Narrows its list on its own side (by label, server, tool, method, errors, state). */
  readonly search: boolean;
  /** Lets the user open other files from disk; a report is a finished document and does not. */
  readonly openFiles: boolean;
}

/** A trace a listing source holds: by its id, or through a share link. */
export type TraceRef = Remote;

/** What a source's list can be narrowed by, when it searches on its side. */
export interface TraceQuery {
  /** A part of the label. */
  label?: string;
  server?: string;
  /** Traces that called this tool, or sent this method. */
  tool?: string;
  method?: string;
  /** Traces with (true) or without (false) failed requests. */
  errors?: boolean;
  state?: 'live' | 'complete';
  /** At most this many traces (the collector's default is 50). */
  limit?: number;
}

/** One trace in a source's list. */
export interface TraceListing {
  id: string;
  label: string | undefined;
  startedAt: string | undefined;
  /** Still being recorded: opening it follows it. */
  live: boolean;
  /** Being recorded, finished with its end line, or stopped without one. */
  state: 'live' | 'complete' | 'no end line';
  /** From its start to the last line the source holds (ms), when both are known. */
  durationMs: number | undefined;
  server: string | undefined;
  /** Client requests (messages in) and failed ones, as the source counted them. */
  requests: number;
  errors: number;
  /** Set for a production session recorded by an instrumented server. */
  session: ListedSession | undefined;
}

/** Who a production session was, as the collector read it from the trace's meta line. */
export interface ListedSession {
  /** The user's email, name or id; else the kind of identity and the start of its key. */
  who: string;
  /** Client name and version, e.g. `claude-code 1.2.0`. */
  client: string | undefined;
  /** `stateless` for a 2026-07-28 session (keyed by tapedeck: the protocol has no session id), else `initialize`. */
  era?: string | undefined;
}

/** Traces being read or followed into a model. */
export interface Opened {
  /** Settles once the traces are read whole, or the followed trace is connecting; never rejects. */
  readonly ready: Promise<void>;
  /** Stops reading and following (the page moved on); safe before `ready`, and more than once. */
  close(): void;
}
