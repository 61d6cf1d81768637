import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The loopback listener the browser comes back to after sign-in (RFC 8252 §7.3): `http://127.0.0.1:<port>/callback`,
 * bound to 127.0.0.1 only, on a port the system picks. It answers only a GET of its own path with the `state` it
 * expects, and only while a sign-in waits; everything else is a 404 or a 400, so a page elsewhere cannot hand the
 * bridge a code of its choosing.
 */
export class OAuthCallback {
  private server: Server | undefined;
  private port = 0;
  private waiting:
    | { state: string; resolve: (code: string) => void; reject: (err: Error) => void }
    | undefined;

  /** The redirect URI, once listening. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  /** Listens on `port` when it is free (the one the saved registration names), else on any. */
  async listen(port = 0): Promise<void> {
    if (this.server) return;
    try {
      await this.bind(port);
    } catch (err) {
      if (port === 0) throw err;
      await this.bind(0);
    }
  }

  private async bind(port: number): Promise<void> {
    const server = createServer((req, res) => {
      const host = req.headers.host ?? '';
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const waiting = this.waiting;
      if (req.method !== 'GET' || url.pathname !== '/callback' || host !== `127.0.0.1:${this.port}`) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      if (waiting === undefined || url.searchParams.get('state') !== waiting.state) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('no sign-in is waiting for this answer\n');
        return;
      }
      this.waiting = undefined;
      const code = url.searchParams.get('code');
      if (code === null) {
        const error = url.searchParams.get('error') ?? 'no code';
        const description = url.searchParams.get('error_description');
        res.writeHead(400, { 'content-type': 'text/plain' }).end('sign-in failed; see the terminal\n');
        waiting.reject(new Error(description === null ? error : `${error}: ${description}`));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end('Signed in: tapedeck goes on with the recording. This page can be closed.\n');
      waiting.resolve(code);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** A fresh `state` for the next authorization request. */
  newState(): string {
    return randomBytes(16).toString('base64url');
  }

  /** The code the browser brings back with `state`; rejects when the sign-in fails or `signal` aborts. */
  code(state: string, signal: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      const stop = () => {
        this.waiting = undefined;
        reject(new Error('the sign-in was abandoned: the recording ended first'));
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.waiting = {
        state,
        resolve: (code) => {
          signal.removeEventListener('abort', stop);
          resolve(code);
        },
        reject: (err) => {
          signal.removeEventListener('abort', stop);
          reject(err);
        },
      };
    });
  }

  async close(): Promise<void> {
    const { server } = this;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
