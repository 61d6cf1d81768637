import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { isEmptyQuery, kindMatches, type LineQuery, textMatch } from '../../trace/query.js';
import { isShortAscii, markShortText } from './short-search.js';
import { MAX_RANGE } from './text-filter.js';
import { OUTCOMES, type TraceIndex } from './trace-index.js';

/**
 * The viewer's search and filters on a paged trace, answered on the server: a LineQuery (trace/query.ts), read from
 * the parameters the viewer keeps in its links, the rows that pass as a list of row numbers. The facets
 * are read from the index's columns; a text search reads the file once, line by line, and matches the message
 * part of each line (what follows `"raw":`), a request row also passing when its answer matches, as in the
 * viewer. Results are kept per filter until the index grows.
 */

/** A search of a trace's lines: a test of one line, and for plain text a pattern to find candidates in a chunk. */
export interface LineSearch {
  test(text: string): boolean;
  /** Plain text (not a regular expression): found across a whole chunk, so lines without it cost no test. */
  find?: RegExp | undefined;
  /** The plain text searched for (not a regular expression): the file's text filter names where it may be. */
  text?: string | undefined;
}

/**
 * The search as a test of a line's text, or an error message for a regular expression that does not compile.
 *
 * @example compileSearch({ q: 'echo' }).test('{"raw":{"method":"tools/call","params":{"name":"echo"}}}') // → true
 */
export function compileSearch(query: LineQuery): LineSearch | { error: string } {
  const match = textMatch(query) ?? { test: () => true };
  if (match.error !== undefined) return { error: match.error };
  const q = query.q?.trim() ?? '';
  return {
    test(text) {
      const raw = text.indexOf('"raw":');
      return match.test(raw < 0 ? text : text.slice(raw + 6));
    },
    find: query.regex || q === '' ? undefined : new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'),
    text: query.regex || q === '' ? undefined : q,
  };
}

/**
 * Marks the lines of `body` (whole lines, the first numbered `lineNo`) that pass the search; returns how many
 * lines it held. With a plain-text search the chunk is searched as one text and only the lines a match falls in
 * are tested; else every line is.
 */
export function markLines(body: string, lineNo: number, search: LineSearch, bits: Uint8Array): number {
  let line = lineNo;
  let from = 0;
  const find = search.find;
  if (find) {
    find.lastIndex = 0;
    for (let m = find.exec(body); m !== null; m = find.exec(body)) {
      for (let nl = body.indexOf('\n', from); nl !== -1 && nl < m.index; nl = body.indexOf('\n', from)) {
        line++;
        from = nl + 1;
      }
      const end = body.indexOf('\n', m.index);
      const stop = end === -1 ? body.length : end;
      if (search.test(body.slice(from, stop))) bits[line] = 1;
      if (end === -1) return line - lineNo + 1;
      line++;
      from = end + 1;
      find.lastIndex = from;
    }
    for (let nl = body.indexOf('\n', from); nl !== -1; nl = body.indexOf('\n', from)) {
      line++;
      from = nl + 1;
    }
    return line - lineNo;
  }
  for (let nl = body.indexOf('\n'); nl !== -1; nl = body.indexOf('\n', from)) {
    if (search.test(body.slice(from, nl))) bits[line] = 1;
    line++;
    from = nl + 1;
  }
  return line - lineNo;
}

/**
 * Which lines of the trace's files match a search: a bit per line, `bits[file][lineNo]`. Plain text is looked
 * for only in the parts of a file its text filter names (most of a big trace is never read); anything else reads
 * the whole file.
 *
 * @example const bits = await matchingLines(index, search);
 */
async function matchingLines(index: TraceIndex, search: LineSearch): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const indexed of index.files) {
    await indexed.offsets.whole();
    const bits = new Uint8Array(indexed.offsets.count + 2);
    const ranges = search.find && search.text ? indexed.offsets.filter.ranges(search.text) : undefined;
    if (ranges === undefined && search.find && search.text && isShortAscii(search.text)) {
      await markShortText(indexed.file, indexed.offsets.size, search.text, bits);
      out.push(bits);
      continue;
    }
    if (ranges) {
      await markRanges(indexed.file, ranges, (start) => indexed.offsets.lineAt(start), search, bits);
      out.push(bits);
      continue;
    }
    let lineNo = 1;
    let carry = '';
    const stream = createReadStream(indexed.file, {
      encoding: 'utf8',
      start: 0,
      end: Math.max(0, indexed.offsets.size - 1),
      highWaterMark: 4 * 1024 * 1024,
    });
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = carry + chunk;
      const last = text.lastIndexOf('\n');
      if (last === -1) {
        carry = text;
        continue;
      }
      lineNo += markLines(text.slice(0, last + 1), lineNo, search, bits);
      carry = text.slice(last + 1);
    }
    if (carry !== '' && search.test(carry)) bits[lineNo] = 1;
    out.push(bits);
  }
  return out;
}

/** Ranges joined into one read while they lie closer than this. */
const JOIN_GAP = 64 * 1024;

/** Marks the lines that pass the search in some byte ranges of a file (whole lines each). */
async function markRanges(
  file: string,
  ranges: readonly { start: number; end: number }[],
  lineAt: (start: number) => number | undefined,
  search: LineSearch,
  bits: Uint8Array,
): Promise<void> {
  const handle = await open(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(0);
    let i = 0;
    while (i < ranges.length) {
      const start = ranges[i]!.start;
      let end = ranges[i]!.end;
      while (
        i + 1 < ranges.length &&
        ranges[i + 1]!.start - end < JOIN_GAP &&
        ranges[i + 1]!.end - start <= MAX_RANGE
      )
        end = ranges[++i]!.end;
      i++;
      const lineNo = lineAt(start);
      if (lineNo === undefined) throw new Error(`no line starts at byte ${start}`);
      if (buffer.length < end - start) buffer = Buffer.allocUnsafe(end - start);
      const { bytesRead } = await handle.read(buffer, 0, end - start, start);
      markLines(buffer.toString('utf8', 0, bytesRead), lineNo, search, bits);
    }
  } finally {
    await handle.close();
  }
}

export interface FilterResult {
  /** Row numbers that pass, in order; undefined when every row does. */
  rows: Int32Array | undefined;
  /** How many rows the index held when the filter ran (a filter run while indexing covers only those). */
  upTo: number;
  error: string | undefined;
}

/**
 * Runs a filter over the rows indexed so far.
 *
 * @example const { rows } = await runFilter(index, { tool: 'echo' });
 */
export async function runFilter(index: TraceIndex, filter: LineQuery): Promise<FilterResult> {
  const upTo = index.rowCount;
  if (isEmptyQuery(filter)) return { rows: undefined, upTo, error: undefined };
  let lines: Uint8Array[] | undefined;
  if (filter.q) {
    const search = compileSearch(filter);
    if ('error' in search) return { rows: new Int32Array(0), upTo, error: search.error };
    lines = await matchingLines(index, search);
  }
  const facets = facetTest(index, filter);
  // Row to file and line, read from the columns as they stand (rows indexed so far never change them).
  const files = index.rowFile.view();
  const numbers = index.rowLine.view();
  const matches = (row: number) => lines![files[row]!]?.[numbers[row]!] === 1;
  // Room for every row: a search for a letter passes nearly all of a million, and a list grown by push costs more.
  const out = new Int32Array(upTo);
  let passed = 0;
  for (let row = 0; row < upTo; row++) {
    if (facets && !facets(row)) continue;
    if (lines && !matches(row) && !partnerMatches(index, row, matches)) continue;
    out[passed++] = row;
  }
  return { rows: out.slice(0, passed), upTo, error: undefined };
}

/** The filter's facets (all but the text) as a test of a row; undefined when it has none. */
export function facetTest(index: TraceIndex, filter: LineQuery): ((row: number) => boolean) | undefined {
  const methods = filter.method ? index.methods.matching(filter.method) : undefined;
  const tools = filter.tool ? index.tools.matching(filter.tool) : undefined;
  const server = filter.server ? index.servers.id(filter.server) : 0;
  const dir = filter.dir === 'in' ? 1 : filter.dir === 'out' ? 2 : 0;
  if (!methods && !tools && !server && !dir && filter.errors === undefined && !filter.kind) return undefined;
  return (row) => {
    if (dir && index.rowDir.get(row) !== dir) return false;
    if (server && index.rowServer.get(row) !== server) return false;
    if (methods && !methods.has(index.rowMethod.get(row))) return false;
    if (tools && !tools.has(index.rowTool.get(row))) return false;
    if (filter.errors !== undefined && filter.errors !== index.isError(row)) return false;
    if (filter.kind && !kindMatches(filter.kind, index.kindOf(row))) return false;
    return true;
  };
}

/** The other row of a request or answer (its answer, its request), or -1. */
export function partnerOf(index: TraceIndex, row: number): number {
  const kind = index.kindOf(row);
  const ordinal = index.rowExchange.get(row);
  if ((kind !== 'request' && kind !== 'response') || ordinal < 0) return -1;
  return kind === 'request' ? index.xResponseRow.get(ordinal) : index.xRequestRow.get(ordinal);
}

/** A request or its answer: either side matching counts, as the viewer searches both. */
export function partnerMatches(index: TraceIndex, row: number, matches: (row: number) => boolean): boolean {
  const partner = partnerOf(index, row);
  return partner >= 0 && matches(partner);
}

/**
 * The requests (by ordinal) whose request row passes a filter and whose bar overlaps [from, to]; an open
 * request runs to `openEnd`.
 *
 * @example barsOf(index, rows, 0, Infinity, index.last)
 */
export function barsOf(
  index: TraceIndex,
  rows: Int32Array | undefined,
  from: number,
  to: number,
  openEnd: number,
): Int32Array {
  const out: number[] = [];
  const open = OUTCOMES.indexOf('open');
  const consider = (row: number) => {
    const ordinal = index.rowExchange.get(row);
    const start = index.xStart.get(ordinal);
    if (Number.isNaN(start)) return;
    const answered = index.xEnd.get(ordinal);
    const end =
      Number.isNaN(answered) || index.xOutcome.get(ordinal) === open ? Math.max(openEnd, start) : answered;
    if (end >= from && start <= to) out.push(ordinal);
  };
  if (rows) {
    for (const row of rows) if (index.kindOf(row) === 'request') consider(row);
  } else {
    for (let ordinal = 0; ordinal < index.exchangeCount; ordinal++) consider(index.xRequestRow.get(ordinal));
  }
  return Int32Array.from(out);
}
