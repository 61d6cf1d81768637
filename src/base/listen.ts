import type { AddressInfo, Server } from 'node:net';
import { TapedeckError } from './errors.js';

/**
 * Starts `server` listening on `host:port` and resolves to the address it got. A port in use, or an address this
 * machine does not have, is one line for the user — a TapedeckError naming the address and `hint` (the flag to
 * change) — never a raw `listen EADDRINUSE` error.
 *
 * @example const { port } = await listenOn(server, '127.0.0.1', 0, 'pick another with --port');
 */
export function listenOn(server: Server, host: string, port: number, hint: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE'
          ? `the port is in use; ${hint}`
          : err.code === 'EACCES'
            ? `not allowed to listen there (ports below 1024 need privileges); ${hint}`
            : err.code === 'EADDRNOTAVAIL'
              ? 'no such address on this machine; expected one of its own addresses, such as 127.0.0.1'
              : err.message;
      reject(new TapedeckError('io', `cannot listen on ${host}:${port}: ${why} (${err.code ?? 'error'})`));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server.address() as AddressInfo);
    });
  });
}
