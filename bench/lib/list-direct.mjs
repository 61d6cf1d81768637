// The baseline for drift's live listing: the official SDK client starts the server, lists what it declares, and
// the process ends at once (the listing is what is measured, not how long a server takes to stop).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [process.argv[2], 'stdio'],
  stderr: 'ignore',
});
const client = new Client(
  { name: 'bench', version: '1' },
  { capabilities: { sampling: {}, roots: {}, elicitation: {} } },
);
await client.connect(transport);
await client.listTools();
await client.listPrompts();
await client.listResources();
await client.listResourceTemplates();
transport._process?.kill('SIGKILL');
process.exit(0);
