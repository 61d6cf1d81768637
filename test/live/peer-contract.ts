/**
 * The LivePeer contract, as one suite both live peers run (test/live/peers.test.ts): verify and update talk to a
 * server through this interface alone, so the stdio peer and the HTTP peer must answer it the same way — fresh ids,
 * the server's notifications and questions handed to the hooks, every wait ending (an answer, a timeout at its
 * exact time, the session's end), and the session captured as trace lines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveOutcome, LivePeer, LivePeerHooks } from '../../src/live/peer.js';
import { MemorySink } from '../../src/sink/memory.js';
import type { RpcNotification } from '../../src/trace/jsonrpc.js';
import { newMeta } from '../../src/trace/meta.js';
import type { MessageLine } from '../../src/trace/types.js';
import { flush, ManualClock } from '../helpers/clock.js';

/** Starts a peer, with `hooks`, to a fresh session of the contract server (in-process-servers.ts). */
export type PeerFactory = (hooks: LivePeerHooks) => Promise<LivePeer>;

const INIT = {
  protocolVersion: '2025-06-18',
  capabilities: { sampling: {} },
  clientInfo: { name: 'peer-contract', version: '1.0.0' },
};

/** What a response outcome carries, loosely typed: tests look into results. */
type Loose = {
  id?: unknown;
  result?: { tools?: { name: string }[]; content?: { text?: string }[] };
  error?: unknown;
};
const messageOf = (outcome: LiveOutcome): Loose =>
  outcome.kind === 'response' ? (outcome.message as Loose) : { error: outcome };

/**
 * Runs the LivePeer contract against the peers `start` starts.
 *
 * @example peerContract('the stdio peer', (hooks) => LiveServer.start({ ...inProcessStdio(), ...hooks }));
 */
export function peerContract(name: string, start: PeerFactory): void {
  describe(`${name} keeps the LivePeer contract`, () => {
    const open: LivePeer[] = [];
    afterEach(async () => {
      for (const peer of open.splice(0)) await peer.close();
    });

    /** A peer past the handshake. */
    async function ready(hooks: LivePeerHooks = {}): Promise<LivePeer> {
      const peer = await start({ requestTimeoutMs: 10_000, ...hooks });
      open.push(peer);
      const init = await peer.request('initialize', INIT);
      expect(init.kind).toBe('response');
      peer.notify('notifications/initialized');
      return peer;
    }

    it('sends requests with fresh ids and resolves each with its response', async () => {
      const peer = await ready();
      const sent: unknown[] = [];
      const [tools, echo] = await Promise.all([
        peer.request('tools/list', undefined, { onSent: (id) => sent.push(id) }),
        peer.request(
          'tools/call',
          { name: 'echo', arguments: { message: 'hi' } },
          { onSent: (id) => sent.push(id) },
        ),
      ]);
      expect(new Set(sent).size).toBe(2);
      expect(messageOf(tools)).toMatchObject({ id: sent[0] });
      expect(
        messageOf(tools)
          .result?.tools?.map((t) => t.name)
          .sort(),
      ).toEqual(['ask', 'count', 'echo', 'hang']);
      expect(messageOf(echo)).toMatchObject({
        id: sent[1],
        result: { content: [{ type: 'text', text: 'echo: hi' }] },
      });
      expect(peer.done).toBe(false);
    });

    it('hands the server’s notifications to onNotification, before the response they belong to', async () => {
      const heard: RpcNotification[] = [];
      const peer = await ready({ onNotification: (note) => heard.push(note) });
      const outcome = await peer.request('tools/call', {
        name: 'count',
        arguments: { to: 3 },
        _meta: { progressToken: 'tok' },
      });
      expect(messageOf(outcome).result?.content?.[0]?.text).toBe('counted to 3');
      expect(heard.map((note) => [note.method, (note.params as { progress?: number }).progress])).toEqual([
        ['notifications/progress', 1],
        ['notifications/progress', 2],
        ['notifications/progress', 3],
      ]);
    });

    it('answers the server’s questions with what onRequest returns', async () => {
      const asked: string[] = [];
      const peer = await ready({
        onRequest: (request) => {
          asked.push(request.method);
          return { result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'forty-two' } } };
        },
      });
      const outcome = await peer.request('tools/call', { name: 'ask', arguments: { question: 'why?' } });
      expect(asked).toEqual(['sampling/createMessage']);
      expect(messageOf(outcome).result?.content?.[0]?.text).toBe(
        'the model said: {"type":"text","text":"forty-two"}',
      );
    });

    it('answers a question nobody handles with -32601, and one whose handler throws with -32603', async () => {
      const peer = await ready();
      const unhandled = await peer.request('tools/call', { name: 'ask', arguments: { question: 'why?' } });
      expect(JSON.stringify(messageOf(unhandled))).toContain('Method not found: sampling/createMessage');
      const failing = await ready({
        onRequest: () => {
          throw new Error('no model here');
        },
      });
      const thrown = await failing.request('tools/call', { name: 'ask', arguments: { question: 'why?' } });
      expect(JSON.stringify(messageOf(thrown))).toMatch(/-32603|no model here/);
    });

    it('times a request out at exactly its timeout, on its scheduler', async () => {
      const clock = new ManualClock();
      const peer = await ready({ scheduler: clock });
      let outcome: LiveOutcome | undefined;
      void peer.request('tools/call', { name: 'hang', arguments: {} }, { timeoutMs: 1000 }).then((o) => {
        outcome = o;
      });
      await flush();
      await clock.advance(999);
      expect(outcome).toBeUndefined();
      await clock.advance(1);
      expect(outcome).toEqual({ kind: 'timeout', ms: 1000 });
      // The session goes on after a timeout.
      expect(messageOf(await peer.request('tools/list', undefined)).result?.tools).toHaveLength(4);
    });

    it('ends on close(): waiting requests and later ones resolve as its exit, and done turns true', async () => {
      const clock = new ManualClock();
      const peer = await ready({ scheduler: clock });
      const waiting = peer.request('tools/call', { name: 'hang', arguments: {} });
      await flush();
      const exit = await peer.close();
      // An ordinary end: a process that exited 0 by itself once its stdin closed, or (HTTP) a session with no
      // process, closed by the client; no signal either way.
      expect(exit.signal).toBeNull();
      expect(exit.code === 0 || (exit.code === null && exit.reason === 'closed by the client')).toBe(true);
      expect(await waiting).toEqual({ kind: 'exit', exit });
      expect(peer.done).toBe(true);
      expect(await peer.exited).toBe(exit);
      expect(await peer.request('tools/list', undefined)).toEqual({ kind: 'exit', exit });
      expect(await peer.close()).toBe(exit);
      // No timer of the closed session is left to fire.
      expect(clock.pending()).toEqual([]);
    });

    it('hands the session to a capture sink as message lines, both ways, in order', async () => {
      const capture = new MemorySink();
      capture.start(newMeta({ label: 'peer', transport: 'stdio' }));
      const peer = await ready({ capture });
      await peer.request('tools/call', { name: 'echo', arguments: { message: 'kept' } });
      await peer.close();
      const messages = capture.lines.filter(
        (line): line is MessageLine => line.type === undefined && 'raw' in line,
      );
      const shown = messages.map((m) => {
        const raw = m.raw as { method?: string; id?: unknown; result?: unknown };
        return `${m.dir} ${raw.method ?? (raw.result === undefined ? 'error' : 'result')}`;
      });
      expect(shown).toEqual([
        'in initialize',
        'out result',
        'in notifications/initialized',
        'in tools/call',
        'out result',
      ]);
      expect(JSON.stringify(messages.at(-1)?.raw)).toContain('echo: kept');
    });
  });
}
