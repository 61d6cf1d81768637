// `npm start`: records a short real session — the reference server-everything behind `tapedeck record`, driven
// by the official SDK client — then shows the trace: in the web viewer (`tapedeck view`, until Ctrl-C) when run in
// a terminal; otherwise (CI, a pipe) as a timeline plus a self-contained HTML report, and it exits.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'bin.js');
const server = join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const outDir = join(root, 'traces');
const stamp = new Date()
  .toISOString()
  .replace(/[-:]/g, '')
  .replace(/\.\d+Z$/, 'Z');
const tracePath = join(outDir, `demo-${stamp}.jsonl`);
mkdirSync(outDir, { recursive: true, mode: 0o700 });

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli, 'record', '--file', tracePath, '--label', 'demo', '--', process.execPath, server, 'stdio'],
  stderr: 'pipe',
});
const client = new Client({ name: 'tapedeck-demo', version: '1.0.0' }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
  role: 'assistant',
  model: 'demo-model',
  content: { type: 'text', text: `(a canned answer to ${request.params.messages.length} message)` },
}));

const step = (text) => process.stdout.write(`  ${text}\n`);
process.stdout.write(
  'Recording a session with @modelcontextprotocol/server-everything through tapedeck record…\n',
);
await client.connect(transport);
step(`initialize → ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`);
const { tools } = await client.listTools();
step(`tools/list → ${tools.length} tools`);
const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello from tapedeck' } });
step(`tools/call echo → ${echo.content[0]?.text}`);
const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
step(`tools/call get-sum → ${sum.content[0]?.text}`);
let progress = 0;
await client.callTool(
  { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
  undefined,
  { onprogress: () => progress++ },
);
step(
  `tools/call trigger-long-running-operation → done, ${progress} progress notifications seen by the client`,
);
const sampled = await client.callTool({
  name: 'trigger-sampling-request',
  arguments: { prompt: 'Say hi', maxTokens: 20 },
});
step(
  `tools/call trigger-sampling-request → server asked the client to sample; ${sampled.content.length} content item(s)`,
);
await client.close();

const shown = relative(process.cwd(), tracePath) || tracePath;
process.stdout.write(`\nThe trace: ${shown}\n\n`);

if (process.stdout.isTTY) {
  // Serve it in the viewer; `tapedeck view` prints the URL, opens a browser when there is one, stops on Ctrl-C.
  process.stdout.write('Opening it in the web viewer (Ctrl-C to stop)…\n');
  // Ctrl-C is for the viewer, which stops cleanly; this script then ends with it.
  process.on('SIGINT', () => {});
  const view = spawnSync(process.execPath, [cli, 'view', tracePath], { stdio: 'inherit' });
  process.exitCode = view.status ?? 0;
} else {
  // No terminal: nobody would stop a server. Show the timeline, write a report that works offline, and exit.
  const show = spawnSync(process.execPath, [cli, 'show', tracePath], { stdio: 'inherit' });
  const reportPath = tracePath.replace(/\.jsonl$/, '.html');
  const report = spawnSync(process.execPath, [cli, 'report', tracePath, '-o', reportPath], {
    stdio: 'inherit',
  });
  process.stdout.write(
    `\nIn the web viewer: node dist/cli/bin.js view ${shown}  ·  stats: node dist/cli/bin.js stats ${shown}\n`,
  );
  process.exitCode = show.status || report.status || 0;
}
