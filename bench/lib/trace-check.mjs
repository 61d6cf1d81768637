import { readFileSync, rmSync } from 'node:fs';

/**
 * Reads (then deletes) the trace a proxy round wrote, so a figure is never reported for a proxy that silently
 * stopped recording: how many lines, how many were messages, whether it ends with an `end` line.
 */
export function checkTrace(traceFile) {
  let text = '';
  try {
    text = readFileSync(traceFile, 'utf8');
  } catch {
    return { traceLines: 0, traceMessages: 0, traceEnded: false };
  }
  rmSync(traceFile, { force: true });
  let lines = 0;
  let messages = 0;
  let last = '';
  for (const line of text.split('\n')) {
    if (line === '') continue;
    lines += 1;
    last = line;
    if (line.includes('"dir":"in","raw"') || line.includes('"dir":"out","raw"')) messages += 1;
  }
  return { traceLines: lines, traceMessages: messages, traceEnded: last.includes('"type":"end"') };
}
