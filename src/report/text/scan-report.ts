import { ENTROPY_RULE } from '../../redact/index.js';
import { keepsFormatAsTapedeck } from '../../trace/import/opened.js';
import { palette } from './color.js';
import { renderTable } from './table.js';

/** One thing in a trace that still looks like a secret. */
export interface ScanFinding {
  /** The file it is in (a rotated trace spans several). */
  file: string;
  /** 1-based line in `file`; for JSON document formats the item number; 0 for what an import synthesized. */
  line: number;
  /** Where in the line: a JSONPath such as `$.raw.result.content[0].text`. */
  path: string;
  /** The 1-based column where the value starts in the line, when the line's text was read and holds it as written. */
  column?: number;
  /** The rule (or heuristic) that matched. */
  rule: string;
  /** A masked preview: enough to recognise the value, never the value. */
  preview: string;
}

/** Something scan could not look inside; its text was still checked by the rules. */
export interface ScanUnchecked {
  file: string;
  line: number;
  path: string;
  /** What it was: `base64 run of 2000000 characters`, `JSON nested deeper than 200 levels …`. */
  what: string;
}

/** The result of `tapedeck scan`, also its `--json` output. */
export interface ScanReport {
  version: 1;
  trace: string;
  format: string;
  /** Trace lines looked at, meta lines included. */
  lines: number;
  /** Corrupt lines that could not be read, so could not be checked. */
  unreadable: number;
  /** Set when the trace came from a pipe (standard input, a FIFO): there is no file to redact in place. */
  piped?: true;
  findings: ScanFinding[];
  /** Values that could not be looked inside (their text was still checked). */
  unchecked: ScanUnchecked[];
}

/**
 * The human report: a table of findings (line, path, rule, preview) and a closing sentence that says what to do.
 *
 * @example renderScanReport({ version: 1, trace: 't.jsonl', format: 'tapedeck', lines: 3, unreadable: 0, findings: [] }, false)
 * // → 'no secrets found in 3 lines of t.jsonl\n'
 */
export function renderScanReport(report: ScanReport, color: boolean, width?: number): string {
  const c = palette(color);
  const unreadable =
    (report.unreadable > 0
      ? `${c.yellow(`${report.unreadable} corrupt line${report.unreadable === 1 ? '' : 's'} could not be checked`)}\n`
      : '') + renderUnchecked(report.unchecked, c.yellow);
  if (report.findings.length === 0) {
    const lines = `${report.lines} line${report.lines === 1 ? '' : 's'}`;
    // Unread lines may hold anything: the rest is not called clean, only found clean.
    if (report.unreadable > 0)
      return `no secrets found in the ${lines} of ${report.trace} that could be read\n${unreadable}`;
    return `${c.green('no secrets found')} in ${lines} of ${report.trace}\n${unreadable}`;
  }
  const files = new Set(report.findings.map((f) => f.file));
  const several = files.size > 1;
  const columns = [
    ...(several ? [{ header: 'file' }] : []),
    { header: 'line', align: 'right' as const },
    { header: 'path', wrap: true },
    { header: 'rule' },
    { header: 'preview', wrap: true },
  ];
  const rows = report.findings.map((f) => [
    ...(several ? [f.file] : []),
    f.line === 0 ? '-' : String(f.line),
    f.path,
    c.yellow(f.rule),
    f.preview,
  ]);
  const lineCount = new Set(report.findings.map((f) => `${f.file}\0${f.line}`)).size;
  const n = report.findings.length;
  return (
    renderTable(columns, rows, { width }) +
    `\n${c.red(`${n} possible secret${n === 1 ? '' : 's'}`)} in ${lineCount} of ${report.lines} lines of ${report.trace}\n` +
    unreadable +
    advice(report)
  );
}

/** How many values could not be looked inside, and the first few of them. */
function renderUnchecked(unchecked: readonly ScanUnchecked[], yellow: (text: string) => string): string {
  if (unchecked.length === 0) return '';
  const n = unchecked.length;
  const shown = unchecked
    .slice(0, 3)
    .map((u) => `  line ${u.line} ${u.path}: ${u.what}`)
    .join('\n');
  const more = n > 3 ? `\n  … and ${n - 3} more` : '';
  return `${yellow(`${n} value${n === 1 ? '' : 's'} could not be looked inside`)} (their text was checked):\n${shown}${more}\n`;
}

/** The `--json` document. */
export function renderScanJson(report: ScanReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** What to do next: rule findings go away with `redact`; heuristic ones need a rule of their own, or a shrug. */
function advice(report: ScanReport): string {
  const guesses = report.findings.filter((f) => f.rule === ENTROPY_RULE).length;
  const ruled = report.findings.length - guesses;
  let text = '';
  // Redact keeps a file's format, so any file can be redacted in place; a pipe cannot.
  const inPlace = report.piped !== true;
  const where = inPlace ? '--in-place' : `-o ${quote(`redacted${extensionOf(report.format)}`)}`;
  if (ruled > 0) text += `Hide them with: tapedeck redact ${quote(report.trace)} ${where}\n`;
  if (guesses > 0) {
    text +=
      `${guesses} ${guesses === 1 ? 'is a guess' : 'are guesses'} (rule "${ENTROPY_RULE}": random-looking, no rule covers it): ` +
      'if secret, hide with tapedeck redact --redact <regex>; otherwise ignore\n';
  }
  return text;
}

function extensionOf(format: string): string {
  if (format === 'mcporter') return '.ndjson';
  if (format === 'har') return '.har';
  return keepsFormatAsTapedeck(format) ? '.jsonl' : '.json';
}

function quote(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}
