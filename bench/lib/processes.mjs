import { readdirSync, readFileSync } from 'node:fs';

/**
 * Bookkeeping so the benchmark never leaves a process behind: every process it starts (and, on Linux, every
 * descendant of one — the proxy's and relay's servers) is remembered by pid *and* start time, so a pid the
 * kernel has since handed to someone else is never signalled.
 */
const tracked = new Map();

/** Reads pid → {ppid, start} from /proc; empty where /proc is not available. */
function processTable() {
  const table = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) table.set(Number(name), stat);
  }
  return table;
}

function readStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: fields[19], cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in ms; undefined where /proc is not available. */
export function cpuMs(pid) {
  const ticks = readStat(pid)?.cpuTicks;
  // Linux reports in USER_HZ, which is 100 on every mainstream build.
  return ticks === undefined ? undefined : ticks * 10;
}

/** Remembers a process this benchmark started, and every descendant it has right now. */
export function track(pid) {
  if (!pid) return;
  const table = processTable();
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift();
    const stat = table.get(current) ?? readStat(current);
    if (!tracked.has(current)) tracked.set(current, stat?.start);
    for (const [child, info] of table) if (info.ppid === current) queue.push(child);
  }
}

function isSame(pid, start) {
  if (start === undefined) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return readStat(pid)?.start === start;
}

/** The tracked processes that are still alive (same pid, same start time). */
export function survivors() {
  const alive = [];
  for (const [pid, start] of tracked) {
    if (isSame(pid, start)) alive.push(pid);
    else tracked.delete(pid);
  }
  return alive;
}

/** SIGKILLs every tracked process still alive; returns how many there were. */
export function killSurvivors() {
  const alive = survivors();
  for (const pid of alive) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone in the meantime.
    }
    tracked.delete(pid);
  }
  return alive.length;
}

/** Waits up to `ms` for the tracked processes to go; kills and names whatever is left. */
export async function reap(ms = 3000) {
  const until = Date.now() + ms;
  while (survivors().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return killSurvivors();
}
