import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Spawn } from '../live/peer.js';
import { spawnServer } from '../process/spawn.js';

/**
 * Starting a server as the live peers take it (src/live imports no node: module itself): spawnServer, which
 * finds `npx.cmd` on Windows and whose kill() ends the server's whole process tree there. verify, and run in
 * update mode, start their live servers through it.
 *
 * @example verifyCassette(cassette, { spawn: nodeSpawn, command: 'node', args: ['server.js'] })
 */
export const nodeSpawn: Spawn = (command, args, options) =>
  // Piped stdin and stdout are never null; stderr is null when inherited, as ChildLike allows.
  spawnServer(command, args, options) as ChildProcessByStdio<Writable, Readable, Readable | null>;
