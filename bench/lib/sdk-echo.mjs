import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { measure } from './drive.mjs';
import { commandFor, EVERYTHING_SERVER, ROOT } from './modes.mjs';
import { cpuMs, reap, track } from './processes.mjs';
import { checkTrace } from './trace-check.mjs';

const ECHO = { name: 'echo', arguments: { message: 'hello from the bench' } };
const EXPECTED = `Echo: ${ECHO.arguments.message}`;

/**
 * One round of one mode: the official SDK Client over stdio against @modelcontextprotocol/server-everything, on a
 * fresh connection. Everything the round started is gone when it returns.
 */
export async function sdkRound({ mode, round, config, tmp }) {
  const traceFile = join(tmp, `sdk-${mode}-${round}.jsonl`);
  const { command, args } = commandFor(mode, [EVERYTHING_SERVER, 'stdio'], traceFile);
  const transport = new StdioClientTransport({ command, args, cwd: ROOT, stderr: 'ignore' });
  const client = new Client({ name: 'tapedeck-bench', version: '0.0.0' });
  try {
    await client.connect(transport);
    track(transport.pid);
    const call = async () => {
      const result = await client.callTool(ECHO);
      if (result.content?.[0]?.text !== EXPECTED)
        throw new Error(`unexpected echo result ${JSON.stringify(result)}`);
    };
    const hop = mode === 'direct' ? undefined : () => cpuMs(transport.pid);
    const figures = await measure(call, config, hop);
    await client.close();
    await reap();
    return { mode, round, ...figures, ...(mode === 'proxy' ? checkTrace(traceFile) : {}) };
  } finally {
    await client.close().catch(() => {});
    const left = await reap();
    if (left > 0) process.stderr.write(`bench: killed ${left} leftover process(es) after sdk ${mode}\n`);
  }
}
