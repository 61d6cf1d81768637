import { HttpLivePeer } from './http-peer.js';
import type { LivePeer, LivePeerHooks, LiveTarget } from './peer.js';
import { LiveServer } from './stdio-peer.js';

/** The one place that knows both live peers: verify and update name a target, this starts the matching peer. */

/**
 * Starts (stdio) or connects to (HTTP) a live server. Fails with a one-line TapedeckError('input') when the
 * command cannot be run or the URL cannot be reached.
 *
 * @example const peer = await startLivePeer({ kind: 'http', url: 'http://127.0.0.1:3001/mcp' }, { requestTimeoutMs: 5000 });
 */
export function startLivePeer(target: LiveTarget, hooks: LivePeerHooks): Promise<LivePeer> {
  if (target.kind === 'http') return HttpLivePeer.start(target, hooks);
  return LiveServer.start({ ...hooks, ...target });
}
