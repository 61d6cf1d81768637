// A child process for bench/llm.mjs: `node llm-hop.mjs proxy <upstream> <trace>` runs the LLM recording proxy
// (dist/llm/proxy.js, a FileSink with the default redaction), `node llm-hop.mjs replay <trace>` the LLM replayer,
// `node llm-hop.mjs bare` a bare node:http server answering fixed JSON (replay's floor).
// Prints `url http://127.0.0.1:PORT` on stderr once it listens; SIGTERM closes it (and the trace).
import { startLlmProxy } from '../../dist/llm/proxy.js';
import { readLlmCalls } from '../../dist/llm/read.js';
import { startLlmReplay } from '../../dist/llm/replay.js';
import { compile } from '../../dist/redact/compile.js';
import { redactorOf } from '../../dist/redact/engine.js';
import { FileSink } from '../../dist/sink/file.js';
import { newMeta } from '../../dist/trace/meta.js';

const [mode, a, b] = process.argv.slice(2);
const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
let close;
if (mode === 'proxy') {
  const sink = new FileSink({ path: b, redact: redactorOf(compiled) });
  const proxy = await startLlmProxy({
    upstream: new URL(a),
    sink,
    meta: { ...newMeta({ label: 'bench', transport: 'http' }), kind: 'llm' },
    compiled,
    port: 0,
  });
  process.stderr.write(`url ${proxy.url}\n`);
  close = async () => {
    await proxy.close(0);
    await sink.close({ reason: 'producer_shutdown' });
  };
} else if (mode === 'bare') {
  // The floor for replay over HTTP: a node:http server that reads each body and answers a fixed JSON message.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"message"}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stderr.write(`url http://127.0.0.1:${server.address().port}\n`);
  close = async () => server.close();
} else {
  const replay = await startLlmReplay({ calls: await readLlmCalls(a), compiled, port: 0 });
  process.stderr.write(`url ${replay.url}\n`);
  close = () => replay.close();
}
process.on('SIGTERM', async () => {
  await close();
  process.exit(0);
});
