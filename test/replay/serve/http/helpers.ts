/**
 * Helpers for the tests of `tapedeck replay --http`: the built CLI listening on a free port (its URL read from the
 * line it prints), stopped with a signal, with its exit status and stderr kept.
 */
import { request as httpRequest } from 'node:http';
import { createParser } from 'eventsource-parser';
import { type ProxyRun, spawnTapedeck, waitFor } from '../../../helpers/proxy.js';

const LISTENING = /tapedeck: replaying .+ on (http:\/\/\S+)\n/;

export interface HttpReplayProcess {
  url: string;
  run: ProxyRun;
  /** Sends `signal` (SIGTERM by default) and resolves with how the process exited and what it said. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; stderr: string }>;
}

/** `tapedeck replay <cassette> --http 127.0.0.1:0 <flags…>`, once it listens. */
export async function startHttpReplay(cassette: string, flags: string[] = []): Promise<HttpReplayProcess> {
  const run = spawnTapedeck(['replay', cassette, '--http', '127.0.0.1:0', ...flags]);
  let exited = false;
  void run.done.then(() => {
    exited = true;
  });
  await waitFor(() => LISTENING.test(run.stderrSoFar()) || exited, 10_000, 'the listening line');
  const url = LISTENING.exec(run.stderrSoFar())?.[1];
  if (url === undefined) throw new Error(`tapedeck replay did not listen:\n${(await run.done).stderr}`);
  return {
    url,
    run,
    async stop(signal = 'SIGTERM') {
      run.child.kill(signal);
      const exit = await run.done;
      return { code: exit.code, stderr: exit.stderr };
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Closes the connection (a response kept open with `hold`). */
  close(): void;
}

/**
 * One HTTP request with every header under the caller's control (fetch will not send a made-up Host); the body is
 * read to its end — or, for an event stream, until `until` holds for what arrived so far (checked from the head
 * on). Then the connection is closed, unless `hold` keeps it open for the caller to close.
 */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    until?: (body: string) => boolean;
    hold?: boolean;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, close: () => res.destroy() });
        if (!options.hold) res.destroy();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (options.until?.(body)) finish();
      });
      res.on('end', finish);
      if (options.until?.('')) finish();
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The events of an SSE body, in order, `message` data parsed as JSON (events without data left out). */
export function sseEvents(
  body: string,
): { id: string | undefined; event: string | undefined; data: unknown }[] {
  const events: { id: string | undefined; event: string | undefined; data: unknown }[] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (event.data === '') return;
      const data =
        event.event === undefined || event.event === 'message' ? JSON.parse(event.data) : event.data;
      events.push({ id: event.id, event: event.event, data });
    },
  });
  parser.feed(body);
  return events;
}
