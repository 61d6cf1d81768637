// The floor: the least an MCP-shaped stdio server can do. Reads JSON lines from stdin and answers each request
// with a JSON-RPC result (one write per chunk read), exits when stdin ends. No SDK, no validation.
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let out = '';
  let start = 0;
  let nl = buffer.indexOf('\n', start);
  while (nl !== -1) {
    const line = buffer.slice(start, nl);
    start = nl + 1;
    nl = buffer.indexOf('\n', start);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message === null || typeof message !== 'object' || message.id === undefined) continue;
    const text = `Echo: ${message.params?.arguments?.message ?? ''}`;
    out += `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } })}\n`;
  }
  buffer = buffer.slice(start);
  if (out !== '') process.stdout.write(out);
});
process.stdin.on('end', () => process.exit(0));
