/**
 * Recording work put off until the bytes it copies are on their way. A proxied answer leaves in one write at the
 * end of the tick it arrived in; parsing, redacting and encoding its trace copy first would delay every answer by
 * that much. Tasks run in the order they were queued, right after the current round of I/O, and whatever they
 * record is stamped with the time it was queued, not the time it ran.
 *
 * @example
 * const later = new RecordQueue();
 * const recorder = new HttpRecorder({ sink, now: later.now });
 * later.push(() => recorder.event('rejected', { reason }));
 * later.flush(); // before reading what was recorded, or before the trace's `end` line
 */
export class RecordQueue {
  private tasks: (() => void)[] = [];
  private times: number[] = [];
  private scheduled = false;
  /** The queueing time of the task that is running. */
  private frozen: number | undefined;

  constructor(private readonly clock: () => number = Date.now) {}

  /** The time recording should use: while a task runs, the time it was queued. */
  readonly now = (): number => this.frozen ?? this.clock();

  push(task: () => void): void {
    this.tasks.push(task);
    this.times.push(this.now());
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  /**
   * Runs every queued task now, oldest first (tasks they queue in turn run too). A task that throws does not stop
   * the ones after it; the first error is thrown once all have run.
   */
  readonly flush = (): void => {
    this.scheduled = false;
    let failed: { error: unknown } | undefined;
    while (this.tasks.length > 0) {
      const tasks = this.tasks;
      const times = this.times;
      this.tasks = [];
      this.times = [];
      for (let i = 0; i < tasks.length; i++) {
        this.frozen = times[i];
        try {
          tasks[i]!();
        } catch (error) {
          failed ??= { error };
        }
      }
      this.frozen = undefined;
    }
    if (failed) throw failed.error;
  };
}
