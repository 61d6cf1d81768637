/**
 * The state of a trace followed while it is recorded: where the connection stands, which lines were already
 * recorded when the page opened the trace (the snapshot) and which arrived after (new), where a reconnect resumes,
 * and what the collector had to drop. A source that follows a trace keeps one per trace (SourceModel.follow) and
 * announces changes through the model, so every view reads the same state.
 */

/**
 * - `connecting`: the first connection is being made;
 * - `live`: connected; the snapshot, then each line as it is recorded;
 * - `reconnecting`: the connection dropped; the next one resumes after `lastSeq`;
 * - `ended`: the recording ended (its end line arrived);
 * - `closed`: the page stopped following (another trace was opened);
 * - `gone`: the trace can no longer be followed (deleted, a share expired or revoked, refused).
 */
export type FollowStatus = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'closed' | 'gone';

/** What a view may read about a followed trace. */
export interface FollowView {
  readonly status: FollowStatus;
  /** Why the connection closed or dropped, when the other side said. */
  readonly detail: string | undefined;
  /** The trace's last seq when the page opened it: lines up to it are the snapshot, lines after it are new. */
  readonly snapshotSeq: number;
  /** The last seq received; a reconnect asks for the lines after it only. */
  readonly lastSeq: number;
  /** Every snapshot line has arrived. */
  readonly caughtUp: boolean;
  /** Lines received that were recorded after the page opened the trace. */
  readonly appended: number;
  /** Lines the collector skipped because this page fell behind (reloading fetches them). */
  readonly dropped: number;
  /** Connections made so far, the first one included. */
  readonly connections: number;
  /** Where the last reconnect resumed: the seq after which it asked for lines (undefined before any reconnect). */
  readonly resumedAfter: number | undefined;
}

/**
 * A followed trace's state, updated by its source as frames and status changes arrive.
 *
 * @example
 * const follow = new FollowState(120);   // the trace held 120 lines when opened
 * follow.received([118, 119, 120, 121]); // follow.caughtUp → true, follow.appended → 1
 */
export class FollowState implements FollowView {
  status: FollowStatus = 'connecting';
  detail: string | undefined;
  lastSeq: number;
  appended = 0;
  dropped = 0;
  connections = 0;
  resumedAfter: number | undefined;

  constructor(
    readonly snapshotSeq: number,
    since = 0,
  ) {
    this.lastSeq = since;
  }

  get caughtUp(): boolean {
    return this.lastSeq >= this.snapshotSeq;
  }

  /** Lines arrived, by seq, in order. */
  received(seqs: readonly number[]): void {
    for (const seq of seqs) {
      if (seq > this.snapshotSeq) this.appended++;
      if (seq > this.lastSeq) this.lastSeq = seq;
    }
  }

  /** Whether a line with this seq was recorded after the page opened the trace. */
  isNew(seq: number): boolean {
    return seq > this.snapshotSeq;
  }

  moved(status: FollowStatus, detail: string | undefined, connections: number): void {
    // A connection after the first picks up where the last one stopped.
    if (status === 'live' && connections > 1 && connections !== this.connections)
      this.resumedAfter = this.lastSeq;
    this.status = status;
    this.detail = detail;
    this.connections = connections;
  }
}
