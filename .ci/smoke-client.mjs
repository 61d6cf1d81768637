// Drives a stdio MCP server command as a client does — initialize, tools/list, one tools/call — and prints what
// it got as one JSON line, so two runs (a live server and its replay) can be compared.
// Usage: node .ci/smoke-client.mjs <command> [args…]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
// The whole environment: the SDK would otherwise give the command only a short default one (no TAPEDECK_DIR).
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'tapedeck-ci', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const echo = await client.callTool({ name: 'echo', arguments: { message: 'from the installed package' } });
await client.close();
process.stdout.write(
  `${JSON.stringify({ tools: tools.map((tool) => tool.name).sort(), echo: echo.content })}\n`,
);
