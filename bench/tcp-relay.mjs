// "One extra TCP hop": bytes passed on both ways, no HTTP parsed at all. `node bench/tcp-relay.mjs <upstream-url>`
// prints `relay http://127.0.0.1:PORT` once it listens. Against bench/http-relay.mjs it shows what an HTTP hop
// costs beyond the hop itself: parsing and writing HTTP on both sides, which a recorder cannot skip.
import { connect, createServer } from 'node:net';

const upstream = new URL(process.argv[2] ?? '');
const server = createServer((client) => {
  const up = connect(Number(upstream.port), upstream.hostname);
  client.setNoDelay(true);
  up.setNoDelay(true);
  client.pipe(up);
  up.pipe(client);
  client.on('error', () => up.destroy());
  up.on('error', () => client.destroy());
  client.on('close', () => up.destroy());
  up.on('close', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`relay http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
