/**
 * A real SDK server (test/helpers/sdk-session.ts's, plus a tool that never answers) reached the two ways a live
 * peer reaches one, without a process or a port: over stdio as a "child process" whose pipes are streams in this
 * process, and over Streamable HTTP through a fetch answered by the SDK's web-standard transport.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ChildLike, HttpTarget, Spawn, StdioTarget } from '../../src/live/peer.js';
import { makeServer } from '../helpers/sdk-session.js';

/** The server every live peer test talks to: echo, count (progress), ask (sampling), and hang (no answer). */
export function contractServer(): McpServer {
  const server = makeServer();
  server.registerTool('hang', {}, () => new Promise<never>(() => {}));
  return server;
}

/**
 * A server "process" in this one: its stdin and stdout are streams an SDK stdio transport reads and writes. It
 * exits 0 when its stdin ends (as the SDK's servers do), or with the signal it is killed with.
 */
class InProcessChild extends EventEmitter implements ChildLike {
  readonly pid = undefined;
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  private gone = false;

  constructor(private readonly server: McpServer) {
    super();
    void server.connect(new StdioServerTransport(this.stdin, this.stdout));
    this.stdin.on('end', () => this.exit(0, null));
    setImmediate(() => this.emit('spawn'));
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    this.exit(null, signal);
    return true;
  }

  private exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.gone) return;
    this.gone = true;
    void this.server.close();
    this.stdout.end();
    this.stderr.end();
    this.emit('exit', code, signal);
  }
}

/** A stdio target whose spawn starts `make()`'s server in this process; `started` counts the spawns. */
export function inProcessStdio(
  make: () => McpServer = contractServer,
): StdioTarget & { started: () => number } {
  let started = 0;
  const spawn: Spawn = () => {
    started += 1;
    return new InProcessChild(make());
  };
  return { kind: 'stdio', spawn, command: 'in-process-server', args: [], started: () => started };
}

/**
 * An HTTP target answered in this process: every request goes to one stateful Streamable HTTP session of
 * `make()`'s server through the SDK's web-standard transport. The URL is a name only.
 */
export function inProcessHttp(
  make: () => McpServer = contractServer,
): HttpTarget & { close(): Promise<void> } {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  const server = make();
  const connected = server.connect(transport);
  return {
    kind: 'http',
    url: 'http://127.0.0.1:7777/mcp',
    fetch: async (input, init) => {
      await connected;
      return transport.handleRequest(new Request(input, init));
    },
    close: () => server.close(),
  };
}
