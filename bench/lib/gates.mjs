import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintTrace } from '../../dist/gates/lint/lint-trace.js';
import { median } from './stats.mjs';

/**
 * lint of a 100k-message trace within `lintTargetMs`, and linear in size: each doubling (50k → 100k → 200k) at most
 * `linearMax`× the time (2 is linear; a quadratic pass would take 4); drift live within `driftRatio`× a listing.
 */
export const GATES_BENCH_DEFAULTS = {
  messages: 100_000,
  rounds: 3,
  lintTargetMs: 3000,
  linearMax: 2.5,
  driftRatio: 1.5,
};

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const BIN = join(ROOT, 'dist/cli/bin.js');
const LIST_DIRECT = fileURLToPath(new URL('./list-direct.mjs', import.meta.url));

/** A session of `messages` lines: initialize, tools/list with schemas, then tools/call exchanges. */
async function writeTrace(file, messages) {
  const out = createWriteStream(file);
  const t = (i) => new Date(Date.parse('2026-03-01T10:00:00.000Z') + i).toISOString();
  const write = (line) =>
    out.write(`${JSON.stringify(line)}\n`) ? undefined : new Promise((r) => out.once('drain', r));
  await write({ v: 1, type: 'meta', startedAt: t(0), label: 'bench', transport: 'stdio' });
  await write({
    t: t(1),
    dir: 'in',
    raw: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
    },
  });
  await write({
    t: t(2),
    dir: 'out',
    raw: {
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 's', version: '1' },
      },
    },
  });
  const tool = {
    name: 'search',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query'],
    },
    outputSchema: { type: 'object', properties: { hits: { type: 'integer' } }, required: ['hits'] },
  };
  await write({ t: t(3), dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
  await write({ t: t(4), dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: { tools: [tool] } } });
  for (let i = 2; i < messages / 2; i++) {
    await write({
      t: t(2 * i),
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'search', arguments: { query: `q${i % 400}`, limit: 10 } },
      },
    });
    await write({
      t: t(2 * i + 1),
      dir: 'out',
      raw: {
        jsonrpc: '2.0',
        id: i,
        result: { content: [{ type: 'text', text: `${i % 50} hits` }], structuredContent: { hits: i % 50 } },
      },
    });
  }
  await new Promise((r) => out.end(r));
}

function timed(command, args) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/**
 * lint of generated traces (half and full size: the ratio shows it is linear), and drift of a lock file against a
 * live server-everything next to the same listing done directly by the SDK client in a process of its own, rounds
 * alternating.
 */
export async function runGatesBench({ tmp, log }) {
  const { messages, rounds, lintTargetMs, linearMax, driftRatio } = GATES_BENCH_DEFAULTS;
  const sizes = [messages / 2, messages, messages * 2];
  const files = sizes.map((size) => join(tmp, `lint-${size}.jsonl`));
  for (const [i, size] of sizes.entries()) await writeTrace(files[i], size);
  const times = sizes.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, file] of files.entries()) {
      const started = performance.now();
      const { findings } = await lintTrace(file);
      times[i].push(performance.now() - started);
      if (findings.length > 0) throw new Error(`bench trace has lint findings: ${findings[0].message}`);
    }
    log(`lint round ${round + 1}: ${times.map((t) => `${Math.round(t.at(-1))} ms`).join(' / ')}`);
  }
  const lock = join(tmp, 'everything.lock.json');
  await timed(process.execPath, [
    BIN,
    'drift',
    lock,
    '--write-lock',
    lock,
    '--',
    process.execPath,
    EVERYTHING,
    'stdio',
  ]);
  const directMs = [];
  const driftMs = [];
  for (let round = 0; round < rounds + 2; round++) {
    directMs.push(await timed(process.execPath, [LIST_DIRECT, EVERYTHING]));
    driftMs.push(
      await timed(process.execPath, [BIN, 'drift', lock, '--', process.execPath, EVERYTHING, 'stdio']),
    );
    log(
      `drift round ${round + 1}: direct ${Math.round(directMs.at(-1))} ms, drift ${Math.round(driftMs.at(-1))} ms`,
    );
  }
  const [halfMs, fullMs, doubleMs] = times.map((t) => median(t));
  const lint = { halfMs, fullMs, doubleMs, doubleMessages: messages * 2 };
  const drift = { directMs: median(directMs), driftMs: median(driftMs) };
  return {
    messages,
    lint: {
      ...lint,
      linearity: fullMs / halfMs,
      doubling: doubleMs / fullMs,
      linearMax,
      targetMs: lintTargetMs,
      pass: fullMs <= lintTargetMs,
      linear: fullMs / halfMs <= linearMax && doubleMs / fullMs <= linearMax,
    },
    drift: {
      ...drift,
      ratio: drift.driftMs / drift.directMs,
      targetRatio: driftRatio,
      pass: drift.driftMs / drift.directMs <= driftRatio,
    },
  };
}
