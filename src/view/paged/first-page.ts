import { open } from 'node:fs/promises';
import type { LineQuery } from '../../trace/query.js';
import { compileSearch, facetTest, type LineSearch, markLines, partnerOf } from './query.js';
import type { TraceIndex } from './trace-index.js';

/**
 * The first rows of a filtered view, found before the whole view is: a search for a letter or two reads the whole
 * file (a quarter of a second for a million messages) and its rows are counted after, yet its first page lies in
 * the first few hundred lines. So the rows are walked from the first, their lines (and each request's answer, or
 * answer's request) read a batch at a time and tested as the whole search tests them, until a page is full. A
 * view whose rows are rare (a word in one call) gives up after PROBE_ROWS rows and is answered whole.
 */

/** Rows looked at, at most, before the whole view is waited for instead. */
const PROBE_ROWS = 40_000;
/** Rows in the first batch; each next batch is twice as big. */
const FIRST_BATCH = 512;
/** Lines this close together are read in one go (lines between them are read and tested too). */
const JOIN_LINES = 64;
/** A search whose text filters leave less than 1/NARROW of the files to read is answered whole. */
const NARROW = 8;

/** Which lines of one file were read, and which of those pass the search (1 each, as markLines marks them). */
interface FileLines {
  read: Uint8Array;
  bits: Uint8Array;
}

/**
 * The first `want` rows of the view of `filter` over the rows indexed so far, in order, or undefined when they are
 * not among the first PROBE_ROWS rows (or the search does not compile: the whole view says why).
 *
 * @example const rows = await firstRows(index, { q: 'a' }, 200); // → Int32Array of 200 row numbers
 */
export async function firstRows(
  index: TraceIndex,
  filter: LineQuery,
  want: number,
): Promise<Int32Array | undefined> {
  let search: LineSearch | undefined;
  if (filter.q) {
    const compiled = compileSearch(filter);
    if ('error' in compiled || narrowed(index, compiled)) return undefined;
    search = compiled;
  }
  const facets = facetTest(index, filter);
  const upTo = Math.min(index.rowCount, PROBE_ROWS);
  const files = new Map<number, FileLines>();
  const matches = (row: number) => files.get(index.rowFile.get(row))?.bits[index.rowLine.get(row)] === 1;
  const out: number[] = [];
  let batch = FIRST_BATCH;
  for (let row = 0; row < upTo && out.length < want; batch *= 2) {
    const end = Math.min(upTo, row + batch);
    if (search) await readBatch(index, row, end, search, files);
    for (; row < end && out.length < want; row++) {
      if (facets && !facets(row)) continue;
      if (search && !matches(row)) {
        const partner = partnerOf(index, row);
        if (partner < 0 || !matches(partner)) continue;
      }
      out.push(row);
    }
  }
  return out.length >= want ? Int32Array.from(out) : undefined;
}

/**
 * Whether the files' text filters leave little of them to read for this search (a rare word): the whole view is
 * then quick, and its rows may lie anywhere.
 */
function narrowed(index: TraceIndex, search: LineSearch): boolean {
  if (!search.find || !search.text) return false;
  let bytes = 0;
  let size = 0;
  for (const indexed of index.files) {
    const ranges = indexed.offsets.filter.ranges(search.text);
    if (ranges === undefined) return false;
    for (const range of ranges) bytes += range.end - range.start;
    size += indexed.offsets.size;
  }
  return bytes * NARROW < size;
}

/** Reads and tests the lines of rows [from, to) and of their requests' other rows, each line once. */
async function readBatch(
  index: TraceIndex,
  from: number,
  to: number,
  search: LineSearch,
  files: Map<number, FileLines>,
): Promise<void> {
  const wanted = new Map<number, number[]>();
  const want = (row: number) => {
    if (row < 0) return;
    const file = index.rowFile.get(row);
    const line = index.rowLine.get(row);
    if (line < 1 || files.get(file)?.read[line] === 1) return;
    const list = wanted.get(file);
    if (list) list.push(line);
    else wanted.set(file, [line]);
  };
  for (let row = from; row < to; row++) {
    want(row);
    want(partnerOf(index, row));
  }
  for (const [file, lines] of wanted) {
    const offsets = index.files[file]!.offsets;
    lines.sort((a, b) => a - b);
    const size = lines[lines.length - 1]! + JOIN_LINES + 2;
    let state = files.get(file);
    if (!state || state.read.length < size) {
      // Room for the lines asked for (a trace still being indexed grows).
      const grown = { read: new Uint8Array(size * 2), bits: new Uint8Array(size * 2) };
      if (state) {
        grown.read.set(state.read);
        grown.bits.set(state.bits);
      }
      state = grown;
      files.set(file, state);
    }
    const handle = await open(index.files[file]!.file, 'r');
    try {
      for (let i = 0; i < lines.length; ) {
        let last = lines[i]!;
        let j = i + 1;
        while (j < lines.length && lines[j]! - last <= JOIN_LINES) last = lines[j++]!;
        await readLines(handle, offsets, lines[i]!, last, search, state);
        i = j;
      }
    } finally {
      await handle.close();
    }
  }
}

/** Reads lines first … last of a file and marks those that pass (the bytes as the whole search reads them). */
async function readLines(
  handle: Awaited<ReturnType<typeof open>>,
  offsets: TraceIndex['files'][number]['offsets'],
  first: number,
  last: number,
  search: LineSearch,
  state: FileLines,
): Promise<void> {
  const range = await offsets.line(first);
  if (!(await offsets.line(last)) || !range) return;
  const start = range.start;
  const stop = Math.min(offsets.size, offsets.startOf(last + 1) ?? offsets.size);
  const buffer = Buffer.allocUnsafe(Math.max(0, stop - start));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
  let body = buffer.toString('utf8', 0, bytesRead);
  // The file's last line may have no newline: markLines tests whole lines only.
  if (!body.endsWith('\n')) body += '\n';
  markLines(body, first, search, state.bits);
  state.read.fill(1, first, last + 1);
}
