import { open } from 'node:fs/promises';
import { Column } from './columns.js';
import { TextFilter } from './text-filter.js';

/** Bytes read per look for newlines: a few of these per second keep well ahead of the parsing reader. */
const CHUNK = 4 * 1024 * 1024;
/** How far the scan runs ahead of the line the index has reached, unless a line further on is asked for. */
const AHEAD_LINES = 50_000;

/**
 * Where each line of a file starts, found by a plain scan for newline bytes (far faster than the reader that
 * parses them), so a line named by its number is read back with one positioned read. The scan keeps a little
 * ahead of the index (`reached`), and goes further when a line there is asked for or the whole file is (a
 * search), so it never competes with the first screen for the machine.
 *
 * @example const offsets = new LineOffsets('trace.jsonl', size); await offsets.line(42) // → { start, end }
 */
export class LineOffsets {
  /** starts[n - 1] is where line n begins. */
  private readonly starts = new Column(Float64Array, 1 << 16);
  /** Which parts of the file may hold a text: a search reads only those (complete once `done` is). */
  readonly filter = new TextFilter();
  private scanned = 0;
  private finished = false;
  private failure: unknown;
  private waiting: (() => void)[] = [];
  /** The index has reached this line; the scan stays within AHEAD_LINES of it unless asked for more. */
  private reachedLine = 0;
  private eager = false;
  private resume: (() => void) | undefined;
  readonly done: Promise<void>;

  constructor(
    readonly file: string,
    /** The size the server announced: lines appended after it are not this trace's (a recorder still writing). */
    readonly size: number,
    /** How long the scan may wait between reads now, in ms (the server is answering someone). */
    private readonly busy: () => number = () => 0,
  ) {
    this.starts.push(0);
    this.done = this.scan().catch((err: unknown) => {
      this.failure = err;
    });
  }

  /** Lines found so far. */
  get count(): number {
    return this.finished ? this.starts.length : this.starts.length - 1;
  }

  /** The index has read up to line `lineNo`: the scan may run on ahead of it. */
  reached(lineNo: number): void {
    this.reachedLine = lineNo;
    if (this.starts.length <= lineNo + AHEAD_LINES) this.go();
  }

  /** Scans to the end (a search reads every line), resolving once it has. */
  whole(): Promise<void> {
    this.eager = true;
    this.go();
    return this.done;
  }

  /** Where line `lineNo` starts, if the scan has found it. */
  startOf(lineNo: number): number | undefined {
    return lineNo >= 1 && lineNo <= this.starts.length ? this.starts.get(lineNo - 1) : undefined;
  }

  /** The number of the line that starts at byte `start` (a start the scan found), else undefined. */
  lineAt(start: number): number | undefined {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.starts.get(mid);
      if (at === start) return mid + 1;
      if (at < start) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  private go(): void {
    const resume = this.resume;
    this.resume = undefined;
    resume?.();
  }

  private async scan(): Promise<void> {
    const handle = await open(this.file, 'r');
    try {
      const buffer = Buffer.allocUnsafe(CHUNK);
      while (this.scanned < this.size) {
        const { bytesRead } = await handle.read(
          buffer,
          0,
          Math.min(CHUNK, this.size - this.scanned),
          this.scanned,
        );
        if (bytesRead === 0) break;
        let at = buffer.indexOf(10);
        while (at !== -1 && at < bytesRead) {
          this.starts.push(this.scanned + at + 1);
          at = buffer.indexOf(10, at + 1);
        }
        this.filter.feed(buffer, bytesRead, this.scanned);
        this.scanned += bytesRead;
        this.wake();
        // Someone waiting for a line below the scan is never kept waiting by it.
        const until = Date.now() + this.busy();
        while (this.waiting.length === 0 && this.busy() > 0 && Date.now() < until)
          await new Promise((resume) => setTimeout(resume, 2));
        while (
          !this.eager &&
          this.waiting.length === 0 &&
          this.starts.length > this.reachedLine + AHEAD_LINES
        )
          await new Promise<void>((resume) => {
            this.resume = resume;
          });
      }
    } finally {
      this.finished = true;
      this.filter.finish(this.scanned);
      // A final newline ends the last line; it does not start another.
      if (this.starts.length > 1 && this.starts.get(this.starts.length - 1) >= this.size)
        this.starts.length--;
      this.wake();
      await handle.close();
    }
  }

  private wake(): void {
    for (const resume of this.waiting.splice(0)) resume();
  }

  /**
   * The byte range of 1-based line `lineNo` (its newline and a CR before it left out), once the scan has passed
   * it; undefined for a line the file does not have.
   */
  async line(lineNo: number): Promise<{ start: number; end: number } | undefined> {
    while (!this.finished && this.starts.length <= lineNo) {
      await new Promise<void>((r) => {
        this.waiting.push(r);
        this.go();
      });
    }
    if (this.failure !== undefined) throw this.failure;
    if (lineNo < 1 || lineNo > this.count) return undefined;
    const start = this.starts.get(lineNo - 1);
    const end = lineNo < this.starts.length ? this.starts.get(lineNo) - 1 : this.size;
    return { start, end };
  }
}

/** Ranges closer than this are read together, in one read: the lines of a page sit side by side in the file. */
const JOIN_GAP = 256 * 1024;

/**
 * Reads the text of some lines of a file, each by its byte range: ranges that lie close together are read in one
 * go (a page of rows is a few reads, not hundreds, so it is answered quickly even while the file is indexed).
 *
 * @example await readRanges('trace.jsonl', [{ start: 0, end: 120 }]) // → ['{"v":1,"type":"meta",…}']
 */
export async function readRanges(
  file: string,
  ranges: readonly { start: number; end: number }[],
): Promise<string[]> {
  if (ranges.length === 0) return [];
  const order = ranges.map((_, i) => i).sort((a, b) => ranges[a]!.start - ranges[b]!.start);
  const out = new Array<string>(ranges.length).fill('');
  const handle = await open(file, 'r');
  try {
    let at = 0;
    while (at < order.length) {
      // A run of ranges read as one block.
      const first = ranges[order[at]!]!;
      let end = first.end;
      let last = at;
      while (last + 1 < order.length && ranges[order[last + 1]!]!.start - end < JOIN_GAP) {
        last++;
        end = Math.max(end, ranges[order[last]!]!.end);
      }
      const block = Buffer.allocUnsafe(Math.max(0, end - first.start));
      if (block.length > 0) await handle.read(block, 0, block.length, first.start);
      for (let i = at; i <= last; i++) {
        const range = ranges[order[i]!]!;
        let text = block.toString('utf8', range.start - first.start, range.end - first.start);
        if (text.endsWith('\r')) text = text.slice(0, -1);
        out[order[i]!] = text;
      }
      at = last + 1;
    }
    return out;
  } finally {
    await handle.close();
  }
}
