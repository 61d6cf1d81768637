import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile, createRedactor, redactText } from '../../dist/redact/index.js';
import { loadConfig } from './config.mjs';
import { median } from './stats.mjs';

const T = '2026-01-01T00:00:00.000Z';
const MB = 1_000_000;

/**
 * A typical tools/call request of about 1 KB as a trace line: tool arguments with prose, a path, options and
 * counts (`max_tokens`, a progress token) the rules must leave alone, nothing that needs hiding. Ids vary so no
 * cache sees the same object twice in a row.
 */
export function typicalCall(id) {
  return {
    t: T,
    seq: id,
    dir: 'in',
    raw: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'search_documents',
        arguments: {
          query: 'quarterly revenue report for the EMEA region, including the notes from the finance review',
          path: '/srv/data/reports/2026/q3/emea-summary.md',
          filters: {
            tags: ['finance', 'emea', 'q3', 'review'],
            updatedAfter: '2026-07-01T00:00:00Z',
            limit: 25,
          },
          options: { max_tokens: 1024, temperature: 0.2, include_snippets: true, highlight: true },
          context:
            'The user asked for a short summary of the EMEA numbers with the variance against plan. They want ' +
            'the figures in a table and a two-sentence explanation of the largest deviation. Earlier in the ' +
            'session they looked at the APAC report and the consolidated balance sheet; keep the same format ' +
            'as before (markdown, EUR, thousands separators) and mention the data freshness at the end. If a ' +
            'figure is missing, say so rather than estimating it.',
          requestId: `7c9e6679-7425-40de-944b-e07fc1f90a${String(id % 100).padStart(2, '0')}`,
        },
        _meta: { progressToken: id },
      },
    },
  };
}

/**
 * The typical call with one more argument, a link whose query is percent-encoded (`next=%2Fhome%3Ftab%3Dq3`,
 * `+` for spaces): the value rules run on its decoded text too, so this is what a URL costs.
 */
export function encodedCall(id) {
  const line = typicalCall(id);
  line.raw.params.arguments.callback = `https://app.example.com/reports/view?next=%2Fhome%3Ftab%3Dq${id % 10}&lang=en%2DGB&q=revenue+report`;
  return line;
}

/** Messages/s of `redact` over `pool`, `count` messages. */
function rate(redact, pool, count) {
  const started = performance.now();
  for (let i = 0; i < count; i += 1) redact(pool[i % pool.length]);
  return (count * 1000) / (performance.now() - started);
}

/**
 * Another build's redaction engine timed against this one in the same process, rounds alternating which goes
 * first: `BENCH_REDACT_BASELINE` names its `dist` folder (or `dist/redact/index.js`). Undefined without it.
 */
async function baselineBench(config, pools, onRound) {
  const named = process.env.BENCH_REDACT_BASELINE;
  if (named === undefined || named === '') return undefined;
  const entry = named.endsWith('.js') ? resolve(named) : resolve(named, 'redact', 'index.js');
  const other = await import(pathToFileURL(entry).href);
  const sides = {
    this: createRedactor({ defaults: true, rules: [], mode: 'marker' }),
    baseline: other.createRedactor({ defaults: true, rules: [], mode: 'marker' }),
  };
  const result = { entry };
  for (const [name, pool] of Object.entries(pools)) {
    for (const redact of Object.values(sides))
      for (let i = 0; i < 20_000; i += 1) redact(pool[i % pool.length]);
    const ratios = [];
    const rates = { this: [], baseline: [] };
    for (let round = 1; round <= config.redactRounds * 2; round += 1) {
      const order = round % 2 === 0 ? ['this', 'baseline'] : ['baseline', 'this'];
      const got = {};
      for (const side of order) {
        got[side] = rate(sides[side], pool, config.redactMessages / 4);
        rates[side].push(got[side]);
      }
      ratios.push(got.this / got.baseline);
    }
    result[name] = {
      thisPerSec: median(rates.this),
      baselinePerSec: median(rates.baseline),
      ratio: median(ratios),
    };
    onRound(
      `${name} vs baseline: ${Math.round(result[name].thisPerSec)} / ${Math.round(result[name].baselinePerSec)} msgs/s, ×${result[name].ratio.toFixed(3)} (median of per-round ratios)`,
    );
  }
  return result;
}

/** A tools/call result carrying a base64 image of `bytes` characters, as a trace line. */
function imageResult(data) {
  return {
    t: T,
    seq: 1,
    dir: 'out',
    raw: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'image', data, mimeType: 'image/png' }] } },
  };
}

function memoryPass(text) {
  const started = performance.now();
  if (text.includes('~')) throw new Error('base64 holds no ~');
  return performance.now() - started;
}

function timeOnce(redact, line) {
  const started = performance.now();
  const out = redact(line);
  const ms = performance.now() - started;
  if (out !== line) throw new Error('redaction changed a line that holds no secret');
  return ms;
}

/**
 * The redaction engine with the default rules, in process: messages/s on typical 1 KB calls, and the time a big
 * base64 image takes (10 MB, and 100 MB to show the cost grows linearly).
 */
export async function redactBench(config, onRound = () => {}) {
  const redact = createRedactor({ defaults: true, rules: [], mode: 'marker' });
  // Messages as the recorder hands them over: parsed from their text (flat strings, not the joined ones built here).
  const parsed = (line) => JSON.parse(JSON.stringify(line));
  const pool = Array.from({ length: 256 }, (_, i) => parsed(typicalCall(i + 1)));
  const encodedPool = Array.from({ length: 256 }, (_, i) => parsed(encodedCall(i + 1)));
  const bytes = JSON.stringify(pool[0].raw).length;
  const encodedBytes = JSON.stringify(encodedPool[0].raw).length;
  for (let i = 0; i < 20_000; i += 1) {
    redact(pool[i % pool.length]);
    redact(encodedPool[i % encodedPool.length]);
  }
  const rates = [];
  const encodedRates = [];
  for (let round = 1; round <= config.redactRounds; round += 1) {
    rates.push(rate(redact, pool, config.redactMessages));
    encodedRates.push(rate(redact, encodedPool, config.redactMessages));
    onRound(
      `1 KB calls  round ${round}  ${Math.round(rates.at(-1))} msgs/s  (with an encoded URL ${Math.round(encodedRates.at(-1))})`,
    );
  }
  const baseline = await baselineBench(config, { typical: pool, encoded: encodedPool }, onRound);

  const big = randomBytes((config.redactBigMb * MB * 3) / 4).toString('base64');
  const small = big.slice(0, big.length / 10);
  const bigLine = imageResult(big);
  const smallLine = imageResult(small);
  timeOnce(redact, smallLine);
  const smallMs = [];
  const bigMs = [];
  const floorSmall = [];
  const floorBig = [];
  for (let round = 1; round <= config.redactRounds; round += 1) {
    smallMs.push(timeOnce(redact, smallLine));
    bigMs.push(timeOnce(redact, bigLine));
    // The floor: one memchr pass over the same strings (a character neither holds), in the same round.
    floorSmall.push(memoryPass(small));
    floorBig.push(memoryPass(big));
    onRound(
      `base64 round ${round}  ${small.length / MB} MB ${smallMs.at(-1).toFixed(1)} ms  ${big.length / MB} MB ${bigMs.at(-1).toFixed(1)} ms  (one pass ${floorSmall.at(-1).toFixed(2)} / ${floorBig.at(-1).toFixed(2)} ms)`,
    );
  }
  const tenMs = median(smallMs);
  const hundredMs = median(bigMs);
  return {
    messageBytes: bytes,
    messagesPerSec: median(rates),
    encodedBytes,
    encodedPerSec: median(encodedRates),
    baseline,
    smallMb: small.length / MB,
    bigMb: big.length / MB,
    smallMs: tenMs,
    bigMs: hundredMs,
    scaleRatio: hundredMs / tenMs,
    floorSmallMs: median(floorSmall),
    floorBigMs: median(floorBig),
    floorRatio: median(floorBig) / median(floorSmall),
    adversarial: adversarialBench(config, onRound),
  };
}

/**
 * Inputs built to make a careless rule backtrack or rescan: a rule's prefix over and over with what must follow
 * it missing (JWT starts, PEM headers with no END, schemes with no credential, user:pass with no @), markers, and
 * real matches back to back; and JSON text nested as deep as the string is long, a token at its core (a parser
 * that recursed, or rescanned each level, would show here). Each is timed at 0.5 MB and 5 MB; the growth is judged
 * against one plain memchr pass over the same two strings, so what memory alone adds is not counted against the
 * rules. An input is a unit repeated to the size, or a function of the size.
 */
export const ADVERSARIAL_INPUTS = [
  ['a run of JWT starts', 'eyJ'],
  ['header lines with no END', '-----BEGIN PRIVATE KEY-----'],
  ['schemes with no credential', 'Bearer '],
  ['user:pass prefixes with no @', '://user:'],
  ['markers', '[REDACTED:x] '],
  ['many real matches', 'sk-abcdefghijklmnopqrstuvwxyz '],
  // A tenth of the size: JSON text over 1 MiB is scanned as text instead of parsed (src/redact/embedded.ts), and
  // both sizes must time the parse.
  ['JSON nested deep around a token (a tenth of the size)', (n) => nestedJson(Math.floor(n / 10))],
];

/** `[[[…"ghp_…"…]]]`, `n` characters long. */
function nestedJson(n) {
  const token = `"ghp_${'Tn4Xw8Qz2Lp6Rv0Ks3Jm'}${'9Bd5Hc1Fg7Ye2Ua4'}"`;
  const depth = Math.max(0, Math.floor((n - token.length) / 2));
  return `${'['.repeat(depth)}${token}${']'.repeat(depth)}`;
}

function adversarialBench(config, onRound) {
  const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
  const rows = [];
  for (const [name, unit] of ADVERSARIAL_INPUTS) {
    const text =
      typeof unit === 'function' ? unit : (n) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
    const small = text(MB / 2);
    const large = text(5 * MB);
    redactText(small, compiled);
    const smallMs = [];
    const largeMs = [];
    const floorSmall = [];
    const floorLarge = [];
    for (let round = 1; round <= config.redactRounds; round += 1) {
      smallMs.push(timeText(small, compiled));
      largeMs.push(timeText(large, compiled));
      floorSmall.push(memoryPass(small));
      floorLarge.push(memoryPass(large));
    }
    const row = {
      name,
      smallMs: median(smallMs),
      largeMs: median(largeMs),
      ratio: median(largeMs) / Math.max(median(smallMs), 0.01),
      floorRatio: median(floorLarge) / Math.max(median(floorSmall), 0.01),
    };
    onRound(
      `${name}: 0.5 MB ${row.smallMs.toFixed(1)} ms, 5 MB ${row.largeMs.toFixed(1)} ms (×${row.ratio.toFixed(1)}, one pass ×${row.floorRatio.toFixed(1)})`,
    );
    rows.push(row);
  }
  return rows;
}

function timeText(text, compiled) {
  const started = performance.now();
  redactText(text, compiled);
  return performance.now() - started;
}

// `node bench/lib/redact.mjs` runs this part alone (after `npm run build`), JSON on stdout.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await redactBench(loadConfig(), (line) => process.stderr.write(`redact ${line}\n`));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
