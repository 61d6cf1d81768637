// `node bench/llm.mjs` (after `npx tsc -p tsconfig.build.json`): what `record --llm` and `replay --llm` cost.
// 1. Time to the first streamed event of an Anthropic-style event stream: direct to a fake provider, through a bare
//    Node HTTP relay (http-relay.mjs) and through the LLM recording proxy, each in its own process, modes
//    alternating round by round; medians, and the proxy's added ms over the relay (target ≤ 2 ms p50).
// 2. Replay of a 1,000-call recorded session (the replayer in its own process): calls/s, sequential and 16 in
//    flight, beside a bare node:http server answering fixed JSON in the same run (the floor of any HTTP replayer),
//    and the matching alone (key + lookup, in process). Target ≥ 5,000 calls/s.
// Knobs: BENCH_LLM_CALLS (300 per round), BENCH_LLM_ROUNDS (5), BENCH_LLM_EVENTS (20 events per answer).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CALLS = Number(process.env.BENCH_LLM_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_LLM_ROUNDS ?? 5);
const EVENTS = Number(process.env.BENCH_LLM_EVENTS ?? 20);
const here = new URL('.', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'tapedeck-llm-bench-'));
const children = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

const event = (name, data) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
function answerEvents(n) {
  const out = [
    event('message_start', {
      type: 'message_start',
      message: { id: `msg_${n}`, model: 'claude-bench', usage: { input_tokens: 10, output_tokens: 1 } },
    }),
  ];
  for (let i = 0; i < EVENTS; i += 1) {
    out.push(
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: `word${i} ` },
      }),
    );
  }
  out.push(
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: EVENTS },
    }),
  );
  out.push(event('message_stop', { type: 'message_stop' }));
  return out;
}

// The provider: the first event at once, the rest on the next turns (as a model streams).
let served = 0;
const provider = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    served += 1;
    const events = answerEvents(served);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(events[0]);
    let i = 1;
    const next = () => {
      if (i >= events.length) return void res.end();
      res.write(events[i]);
      i += 1;
      setImmediate(next);
    };
    setImmediate(next);
  });
});
await new Promise((resolve) => provider.listen(0, '127.0.0.1', resolve));
const providerUrl = `http://127.0.0.1:${provider.address().port}`;

function startChild(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /(?:url|relay) (http:\S+)/.exec(text);
      if (match) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${text}`)));
  });
}

const body = JSON.stringify({
  model: 'claude-bench',
  max_tokens: 100,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
});
/** ms from sending a request to its first body byte, and to the answer's end. */
function firstEvent(base, agent, path = '/v1/messages', payload = body) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let first;
    const req = request(
      `${base}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bench' } },
      (res) => {
        res.on('data', () => {
          first ??= Number(process.hrtime.bigint() - started) / 1e6;
        });
        res.on('end', () =>
          resolve({ first, total: Number(process.hrtime.bigint() - started) / 1e6, status: res.statusCode }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const relay = await startChild([join(here, 'http-relay.mjs'), providerUrl]);
const proxy = await startChild([
  join(here, 'lib', 'llm-hop.mjs'),
  'proxy',
  providerUrl,
  join(tmp, 'bench-llm.jsonl'),
]);
const modes = { direct: providerUrl, relay: relay.url, proxy: proxy.url };
const samples = { direct: [], relay: [], proxy: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [mode, base] of Object.entries(modes)) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 20; i += 1) await firstEvent(base, agent); // warm-up
    const firsts = [];
    for (let i = 0; i < CALLS; i += 1) firsts.push((await firstEvent(base, agent)).first);
    agent.destroy();
    samples[mode].push(median(firsts));
    process.stderr.write(`round ${round + 1} ${mode}: first event p50 ${median(firsts).toFixed(3)} ms\n`);
  }
}
const p50 = Object.fromEntries(Object.entries(samples).map(([mode, values]) => [mode, median(values)]));
const addedOverRelay = median(samples.proxy.map((value, i) => value - samples.relay[i]));

// Replay: a recorded session of 1,000 calls, each a different conversation state.
const lines = [
  JSON.stringify({ v: 1, type: 'meta', startedAt: new Date().toISOString(), label: 'bench', kind: 'llm' }),
];
const requests = [];
for (let n = 1; n <= 1000; n += 1) {
  const request = {
    model: 'claude-bench',
    max_tokens: 100,
    messages: [
      { role: 'user', content: `question ${n}` },
      { role: 'assistant', content: `turn ${n}` },
    ],
  };
  requests.push(JSON.stringify(request));
  const t = new Date().toISOString();
  lines.push(
    JSON.stringify({
      type: 'llm',
      t,
      seq: 2 * n - 1,
      dir: 'in',
      call: `l${n}`,
      api: 'anthropic.messages',
      method: 'POST',
      path: '/v1/messages',
      headers: {},
      body: request,
    }),
  );
  const answer = {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-bench',
    content: [{ type: 'text', text: `answer ${n}` }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 10, output_tokens: 3 },
  };
  lines.push(
    JSON.stringify({
      type: 'llm',
      t,
      seq: 2 * n,
      dir: 'out',
      call: `l${n}`,
      api: 'anthropic.messages',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: answer,
      firstByteMs: 1,
      durationMs: 1,
    }),
  );
}
const cassette = join(tmp, 'session-llm.jsonl');
writeFileSync(cassette, `${lines.join('\n')}\n`);
const replayRates = { sequential: [], inFlight16: [] };
const bareRates = { sequential: [], inFlight16: [] };
for (let run = 0; run < 3; run += 1) {
  for (const [inFlight, kind] of [
    [1, 'replay'],
    [1, 'bare'],
    [16, 'replay'],
    [16, 'bare'],
  ]) {
    const replay = await startChild([join(here, 'lib', 'llm-hop.mjs'), kind, cassette]);
    const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
    const started = process.hrtime.bigint();
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < requests.length) {
          const payload = requests[next++];
          const { status } = await firstEvent(replay.url, agent, '/v1/messages', payload);
          if (status !== 200) failed += 1;
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    agent.destroy();
    replay.child.kill('SIGTERM');
    if (failed > 0) throw new Error(`replay missed ${failed} of 1000 recorded calls`);
    (kind === 'replay' ? replayRates : bareRates)[inFlight === 1 ? 'sequential' : 'inFlight16'].push(
      1000 / seconds,
    );
  }
}
// The matching itself, without HTTP: key and lookup of every call of the session, in this process.
const { LlmIndex, llmKey } = await import('../dist/llm/match.js');
const { readLlmCalls } = await import('../dist/llm/read.js');
const recorded = await readLlmCalls(cassette);
const engineRates = [];
for (let run = 0; run < 5; run += 1) {
  const index = new LlmIndex(recorded);
  const started = process.hrtime.bigint();
  for (const payload of requests) {
    if (index.take(llmKey('POST', '/v1/messages', JSON.parse(payload)), 'POST', '/v1/messages') === undefined)
      throw new Error('miss');
  }
  engineRates.push(1000 / (Number(process.hrtime.bigint() - started) / 1e9));
}
const result = {
  firstEventP50Ms: p50,
  ratios: {
    proxyOverDirect: p50.proxy / p50.direct,
    proxyOverRelay: p50.proxy / p50.relay,
    relayOverDirect: p50.relay / p50.direct,
  },
  proxyAddedOverRelayMs: addedOverRelay,
  replayCallsPerSecond: {
    sequential: median(replayRates.sequential),
    inFlight16: median(replayRates.inFlight16),
  },
  bareHttpCallsPerSecond: {
    sequential: median(bareRates.sequential),
    inFlight16: median(bareRates.inFlight16),
  },
  replayOverBare: {
    sequential: median(replayRates.sequential) / median(bareRates.sequential),
    inFlight16: median(replayRates.inFlight16) / median(bareRates.inFlight16),
  },
  matchingCallsPerSecond: median(engineRates),
};
console.log(JSON.stringify(result, null, 2));
for (const child of children) child.kill('SIGTERM');
provider.close();
provider.closeAllConnections();
process.exit(0);
