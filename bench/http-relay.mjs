// "One extra HTTP hop": the smallest Node reverse proxy — node:http in, a keep-alive agent out, bodies piped both
// ways, nothing parsed or recorded. `node bench/http-relay.mjs <upstream-url>` prints `relay http://127.0.0.1:PORT`
// once it listens. The recording proxy (`tapedeck record --upstream`) is held to costing about this much.
import { Agent, createServer, request } from 'node:http';

const upstream = new URL(process.argv[2] ?? '');
const agent = new Agent({ keepAlive: true });
const server = createServer((req, res) => {
  const upReq = request(
    {
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
      agent,
    },
    (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    },
  );
  upReq.on('socket', (socket) => socket.setNoDelay(true));
  upReq.on('error', () => res.destroy());
  res.on('close', () => {
    if (!res.writableFinished) upReq.destroy();
  });
  req.pipe(upReq);
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`relay http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
  process.exit(0);
});
