/**
 * Every knob of the benchmark, as data. Each can be overridden from the environment (BENCH_CALLS=500 …); the
 * defaults are the project's target workload and keep a full run well under three minutes on a 2-core machine.
 */
export const BENCH_DEFAULTS = {
  /** Measured calls per phase (sequential, then in flight) per round and mode. */
  calls: 2000,
  /** Calls at the start of each connection (and before the in-flight phase) that are not measured. */
  warmup: 200,
  /** Requests in flight during the throughput phase. */
  concurrency: 16,
  /** Rounds per mode; modes alternate within each round (direct, relay, proxy, direct, …). */
  rounds: 5,
  /** Measured calls per phase for the raw echo floor (cheap, so more samples). */
  rawCalls: 5000,
  /** Calls per phase of the 1 MB part (raw client and server, 1 MB of text each way); 0 skips it. */
  bigCalls: 20,
  /** Also measure a bare Node pipe relay: the "one extra pipe hop" the proxy is held to. 0 turns it off. */
  relay: 1,
  /** Trace lines per writer round. */
  writerLines: 200_000,
  writerRounds: 3,
  /** Size of one encoded trace line in the writer benchmark. */
  lineBytes: 200,
  /** Redaction (default rules, in process): rounds, typical 1 KB messages per round, and the big base64 size (MB). */
  redactRounds: 5,
  redactMessages: 200_000,
  redactBigMb: 100,
  /** Replay part: 1 runs it, 0 skips it. */
  replay: 1,
  /** Replay in process: tools/call exchanges in the generated cassette, and requests in flight when pipelined. */
  replayExchanges: 100_000,
  replayInFlight: 64,
  /**
   * Runs of that, each in a fresh process: the index figure swings with the machine by a fifth from run to run, so
   * the median is judged and the range shown.
   */
  replayRuns: 3,
  /** Also build the index of a cassette whose answers are this long (information only; 0 skips it). */
  replayAnswerBytes: 1024,
  /** Replay over stdio vs the live server: measured sequential calls per round, warm-up calls, rounds. */
  replayCalls: 2000,
  replayWarmup: 200,
  replayRounds: 5,
  /** Echo calls recorded into the stdio cassette; 0 = warm-up + calls (replay repeats the last one beyond that). */
  replayRecord: 0,
  /** HTTP part (SDK Client over Streamable HTTP, direct vs `record --upstream`): 1 runs it, 0 skips it. */
  http: 1,
  /** The collector's upload ingest (1 runs it) and the size of the uploaded trace in MB. */
  collector: 1,
  collectorMb: 100,
  /** alignTraces on two generated 10k-call traces. */
  diff: 1,
  /** `lint` of generated 50k- and 100k-message traces, and `drift` against a live server-everything: 1 runs it. */
  gates: 1,
  /** The viewer's first screen in headless Chromium (needs /usr/bin/chromium), and the trace's message count. */
  viewer: 1,
  viewerMessages: 100_000,
  /**
   * The viewer on a 1M-message (~1 GB) trace written to a temp folder (paged by tapedeck view; the whole file
   * handed to the browser too, as the same-run baseline, when the machine has 8 GB free): 1 runs it.
   */
  viewerBig: 1,
  viewerBigMessages: 1_000_000,
  /**
   * The viewer on a 1M-message trace of small messages (~220 MB, under the byte threshold): the server's choice,
   * first rows, click to detail, search, heap. 1 runs it.
   */
  viewerDense: 1,
  viewerDenseMessages: 1_000_000,
  /** The smaller size measured beside it in the same run (0 leaves it out). */
  viewerDenseSmall: 100_000,
  /** An instrumented McpServer against a plain one, in memory. */
  instrument: 1,
  /** Start-up (first answer of a freshly started server, with and without tapedeck; `tapedeck --help`): 1 runs it. */
  startup: 1,
  /** Start-up rounds, every mode once per round in a fresh process (after one round that is not counted). */
  startupRounds: 15,
  /** HTTP part: measured calls per phase per round and mode, warm-up calls, rounds. */
  httpCalls: 500,
  httpWarmup: 100,
  httpRounds: 5,
};

/** The performance targets the proxy is held to. */
export const TARGETS = {
  /** proxy p50 / direct p50, sequential calls: at most this. */
  latencyRatio: 1.25,
  /** proxy p50 / bare relay p50, sequential SDK calls: recording costs no more than the extra pipe hop. */
  relayLatencyRatio: 1.1,
  /** proxy throughput / direct throughput at `concurrency` in flight: at least this. */
  throughputRatio: 0.8,
  /** FileSink lines per second: at least this. */
  sinkLinesPerSec: 200_000,
  /** Default redaction rules (all provider families) on a typical 1 KB tools/call message: at least this many/s. */
  redactMessagesPerSec: 300_000,
  /** A 10 MB base64 string through every default rule: at most this many ms. */
  redactBase64Ms: 20,
  /** time(100 MB) / time(10 MB): at most this (linear, with a little slack). */
  redactScaleRatio: 12,
  /**
   * time(5 MB) / time(0.5 MB) on the inputs built to make rules backtrack: at most this. Linear is about 10×,
   * quadratic 100×; the slack is for inputs full of matches, whose redacted copy grows with them.
   */
  redactAdversarialRatio: 20,
  /** replayTransport in process, one request in flight (and pipelined): at least this many requests/s. */
  replayRequestsPerSec: 50_000,
  /** Cassette index build (loadCassette + engine) per 100 MB of cassette file: at most this many seconds. */
  replayIndexSecPer100Mb: 1.5,
  /** Memory the built index keeps (heap + external after GC) per byte of cassette file: at most this. */
  replayMemoryRatio: 3,
  /** `tapedeck replay` p50 / live server-everything p50, sequential SDK echo calls: at most this. */
  replayLatencyRatio: 1.0,
  /** The recorder's CPU per 1 MB message (ms), raw client and server: at most this. */
  bigMessageCpuMs: 6,
  /** The recorder's CPU per call over the bare relay's, SDK echo and raw echo: at most this (informational). */
  hopCpuRatio: 1.5,
  /** `record --upstream` p50 / direct p50, SDK echo over Streamable HTTP, sequential: at most this. */
  httpLatencyRatio: 1.3,
  /** `record --upstream` throughput / direct throughput over Streamable HTTP at `concurrency` in flight: at least. */
  httpThroughputRatio: 0.8,
};

const ENV_NAMES = {
  calls: 'BENCH_CALLS',
  warmup: 'BENCH_WARMUP',
  concurrency: 'BENCH_CONCURRENCY',
  rounds: 'BENCH_ROUNDS',
  rawCalls: 'BENCH_RAW_CALLS',
  bigCalls: 'BENCH_BIG_CALLS',
  relay: 'BENCH_RELAY',
  writerLines: 'BENCH_WRITER_LINES',
  writerRounds: 'BENCH_WRITER_ROUNDS',
  lineBytes: 'BENCH_LINE_BYTES',
  redactRounds: 'BENCH_REDACT_ROUNDS',
  redactMessages: 'BENCH_REDACT_MESSAGES',
  redactBigMb: 'BENCH_REDACT_MB',
  replay: 'BENCH_REPLAY',
  replayExchanges: 'BENCH_REPLAY_EXCHANGES',
  replayInFlight: 'BENCH_REPLAY_IN_FLIGHT',
  replayRuns: 'BENCH_REPLAY_RUNS',
  replayAnswerBytes: 'BENCH_REPLAY_ANSWER_BYTES',
  replayCalls: 'BENCH_REPLAY_CALLS',
  replayWarmup: 'BENCH_REPLAY_WARMUP',
  replayRounds: 'BENCH_REPLAY_ROUNDS',
  replayRecord: 'BENCH_REPLAY_RECORD',
  http: 'BENCH_HTTP',
  httpCalls: 'BENCH_HTTP_CALLS',
  httpWarmup: 'BENCH_HTTP_WARMUP',
  httpRounds: 'BENCH_HTTP_ROUNDS',
  collector: 'BENCH_COLLECTOR',
  collectorMb: 'BENCH_COLLECTOR_MB',
  diff: 'BENCH_DIFF',
  gates: 'BENCH_GATES',
  viewer: 'BENCH_VIEWER',
  viewerMessages: 'BENCH_VIEWER_MESSAGES',
  viewerBig: 'BENCH_VIEWER_BIG',
  viewerBigMessages: 'BENCH_VIEWER_BIG_MESSAGES',
  viewerDense: 'BENCH_VIEWER_DENSE',
  viewerDenseMessages: 'BENCH_VIEWER_DENSE_MESSAGES',
  viewerDenseSmall: 'BENCH_VIEWER_DENSE_SMALL',
  instrument: 'BENCH_INSTRUMENT',
  startup: 'BENCH_STARTUP',
  startupRounds: 'BENCH_STARTUP_ROUNDS',
};

/** Knobs where 0 is meaningful (a part turned off, no warm-up, record the default count). */
const ZERO_ALLOWED = [
  'relay',
  'bigCalls',
  'warmup',
  'replay',
  'replayWarmup',
  'replayRecord',
  'replayAnswerBytes',
  'http',
  'httpWarmup',
  'collector',
  'diff',
  'gates',
  'viewer',
  'viewerBig',
  'viewerDense',
  'viewerDenseSmall',
  'instrument',
  'startup',
];

/** Reads the configuration; a bad value is one clear line naming the variable and what is expected. */
export function loadConfig(env = process.env) {
  const config = { ...BENCH_DEFAULTS };
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const value = Number(text.replaceAll('_', ''));
    const min = ZERO_ALLOWED.includes(key) ? 0 : 1;
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`${name}=${text} is not valid; expected an integer >= ${min}`);
    }
    config[key] = value;
  }
  if (config.lineBytes < 120)
    throw new Error(`BENCH_LINE_BYTES=${config.lineBytes} is too small; use >= 120`);
  return config;
}
