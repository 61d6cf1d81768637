import { readFileSync, rmSync } from 'node:fs';

/**
 * Reads (then deletes) the trace a proxy round wrote, so a figure is never reported for a proxy that silently
 * stopped recording: how many lines, how many were messages, whether it ends with an `end` line. Each line is
 * parsed: HTTP message lines carry `conn` and `stream` between `dir` and `raw`.
 */
export function checkTrace(traceFile) {
  let text = '';
  try {
    text = readFileSync(traceFile, 'utf8');
  } catch {
    return { traceLines: 0, traceMessages: 0, traceEnded: false };
  }
  rmSync(traceFile, { force: true });
  const lines = text.split('\n').filter((line) => line !== '');
  const parsed = lines.map((line) => JSON.parse(line));
  return {
    traceLines: lines.length,
    traceMessages: parsed.filter((l) => l.type === undefined && 'raw' in l).length,
    traceEnded: parsed.at(-1)?.type === 'end',
  };
}
