/**
 * `tapedeck mcp` driven by the official SDK client over stdio: every tool, the files it leaves, and the errors an
 * agent gets for bad input (always a tool result with isError, never a crashed server).
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, mcpTapeProblems, REPO_ROOT, readTrace, removeTempDir } from '../helpers/peers.js';
import { type McpPeer, startMcp } from './mcp-peer.js';

const search = (q: string) => ({ method: 'tools/call', params: { name: 'search', arguments: { q } } });

describe('tapedeck mcp over stdio with the SDK client', () => {
  let tmp: string;
  let data: string;
  let peer: McpPeer;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-mcp-');
    data = join(tmp, 'data', 'trajectories');
    peer = await startMcp(data, tmp);
  });

  afterAll(async () => {
    await peer?.close();
    await removeTempDir(tmp);
  });

  it('lists its nine tools, each with a description and an input schema', async () => {
    const { tools } = await peer.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'diff_trajectories',
      'get_trajectory',
      'list_trajectories',
      'record_event',
      'replay_lookup',
      'search_trajectories',
      'start_recording',
      'stop_recording',
      'trajectory_stats',
    ]);
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(20);
    const lookup = tools.find((t) => t.name === 'replay_lookup');
    expect(lookup?.inputSchema.required).toEqual(['trajectory', 'request']);
    expect(Object.keys(lookup?.inputSchema.properties ?? {})).toEqual([
      'trajectory',
      'request',
      'occurrence',
      'ignore',
    ]);
  });

  it('refuses to record an event or stop with no recording active', async () => {
    expect(await peer.call('record_event', { request: search('x'), response: { result: {} } })).toEqual({
      text: 'no recording is active: call start_recording with a name first',
      isError: true,
    });
    expect((await peer.call('stop_recording')).isError).toBe(true);
  });

  it('records a session into a private tapedeck trace', async () => {
    expect(await peer.call('start_recording', { name: 'before' })).toEqual({
      text: 'Recording started: before',
      isError: false,
    });
    const other = await peer.call('start_recording', { name: 'other' });
    expect(other.isError).toBe(true);
    expect(other.text).toContain("a recording is already active: 'before'");
    const events = [
      [search('typescript mcp'), { result: { hits: ['doc1', 'doc2'] } }],
      [search('typescript mcp'), { result: { hits: ['doc3'] } }],
      [
        { jsonrpc: '2.0', id: 7, ...search('replay') },
        { jsonrpc: '2.0', id: 7, result: { hits: [] } },
      ],
      [
        { method: 'tools/call', params: { name: 'now', arguments: { timestamp: 1700000000 } } },
        { content: [{ type: 'text', text: '12:00' }] },
      ],
      [
        {
          method: 'tools/call',
          params: { name: 'fetch', arguments: { apiKey: 'sk-live-51Hx9aBcDeFgHiJkLmNoPq' } },
        },
        { result: { status: 200 } },
      ],
    ];
    for (const [i, [request, response]] of events.entries()) {
      expect(await peer.call('record_event', { request, response })).toEqual({
        text: `Event recorded (total in session: ${i + 1})`,
        isError: false,
      });
    }
    const bad = await peer.call('record_event', { request: { params: {} }, response: { result: {} } });
    expect(bad).toEqual({ text: 'request needs a "method" (a string such as "tools/call")', isError: true });
    const path = join(data, 'before.jsonl');
    expect(await peer.call('stop_recording')).toEqual({
      text: `Recording 'before' saved with 5 event(s) at ${path}`,
      isError: false,
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(existsSync(join(data, 'before.recording'))).toBe(false);
    const lines = readTrace(path);
    expect(mcpTapeProblems(lines)).toEqual([]);
    expect(lines.map((l) => l.type ?? (l as { dir: string }).dir)).toEqual([
      'meta',
      ...Array.from({ length: 5 }, () => ['in', 'out']).flat(),
      'end',
    ]);
    // The secret never reaches the file.
    expect(readFileSync(path, 'utf8')).not.toContain('sk-live-51Hx9aBcDeFgHiJkLmNoPq');
  });

  it('looks responses up by method and params, the id left out, in recorded order', async () => {
    const lookup = (args: Record<string, unknown>) =>
      peer.json<Record<string, unknown>>('replay_lookup', { trajectory: 'before', ...args });
    const first = await lookup({ request: { jsonrpc: '2.0', id: 99, ...search('typescript mcp') } });
    expect(first).toEqual({
      matched: true,
      response: { result: { hits: ['doc1', 'doc2'] } },
      recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await lookup({ request: search('typescript mcp'), occurrence: 2 })).response).toEqual({
      result: { hits: ['doc3'] },
    });
    expect(await lookup({ request: search('typescript mcp'), occurrence: 3 })).toEqual({ matched: false });
    expect(await lookup({ request: search('python') })).toEqual({ matched: false });
    // A response recorded with an id answers with the id of the request looked up.
    expect((await lookup({ request: { id: 'live-1', ...search('replay') } })).response).toEqual({
      jsonrpc: '2.0',
      id: 'live-1',
      result: { hits: [] },
    });
    // A bare response comes back as it was given.
    const now = { method: 'tools/call', params: { name: 'now', arguments: { timestamp: 1800000000 } } };
    expect(await lookup({ request: now })).toEqual({ matched: false });
    expect((await lookup({ request: now, ignore: ['$.params.arguments.timestamp'] })).response).toEqual({
      content: [{ type: 'text', text: '12:00' }],
    });
    // The live request carries the real secret; it is redacted by the recording's rules before matching.
    const fetch = {
      method: 'tools/call',
      params: { name: 'fetch', arguments: { apiKey: 'sk-live-51Hx9aBcDeFgHiJkLmNoPq' } },
    };
    expect((await lookup({ request: fetch })).response).toEqual({ result: { status: 200 } });
    const badPath = await peer.call('replay_lookup', {
      trajectory: 'before',
      request: now,
      ignore: ['params'],
    });
    expect(badPath.isError).toBe(true);
    expect(badPath.text).toMatch(/^ignore path 'params'/);
    const unknown = await peer.call('replay_lookup', { trajectory: 'nope', request: now });
    expect(unknown).toEqual({
      text: `no trajectory named 'nope' in ${data}: it holds 'before'`,
      isError: true,
    });
  });

  it('lists, pages, searches, diffs and counts trajectories, shack files included', async () => {
    await peer.call('start_recording', { name: 'after' });
    await peer.call('record_event', {
      request: search('typescript mcp'),
      response: { result: { hits: ['doc1'] } },
    });
    await peer.call('record_event', { request: search('brand new'), response: { result: { hits: [] } } });
    await peer.call('stop_recording');
    copyFileSync(
      join(REPO_ROOT, 'test/fixtures/interop/shack/my_session.json'),
      join(data, 'my_session.json'),
    );

    expect(await peer.json('list_trajectories')).toEqual({
      dir: data,
      trajectories: [
        { name: 'after', format: 'tapedeck', events: 2, recording: false },
        { name: 'before', format: 'tapedeck', events: 5, recording: false },
        { name: 'my_session', format: 'shack', events: 2, recording: false },
      ],
    });

    const page = await peer.json<{
      items: { index: number; request: unknown }[];
      next_offset: number | null;
    }>('get_trajectory', { name: 'before', limit: 2 });
    expect(page.items.map((item) => item.index)).toEqual([1, 2]);
    expect(page.items[0]?.request).toEqual(search('typescript mcp'));
    expect(page.next_offset).toBe(2);
    const last = await peer.json<{ items: { index: number }[]; next_offset: number | null }>(
      'get_trajectory',
      {
        name: 'before',
        offset: 4,
      },
    );
    expect(last).toMatchObject({ items: [{ index: 5, tool: 'fetch' }], next_offset: null, events: 5 });

    const found = await peer.json<{ total: number; hits: { trajectory: string; in: string }[] }>(
      'search_trajectories',
      { query: 'DOC2' },
    );
    expect(found.hits.map((hit) => [hit.trajectory, hit.in])).toEqual([
      ['before', 'response'],
      ['my_session', 'response'],
    ]);
    const byTool = await peer.json<{ total: number }>('search_trajectories', { query: 'now' });
    expect(byTool.total).toBe(1);

    const diff = await peer.json<{ summary: Record<string, unknown>; changes: Record<string, unknown>[] }>(
      'diff_trajectories',
      { a: 'before', b: 'after' },
    );
    expect(diff.summary).toMatchObject({ same: 0, changed: 2, added: 0, removed: 3, identical: false });
    expect(diff.changes[0]).toEqual({
      kind: 'changed',
      a: 1,
      b: 1,
      method: 'tools/call',
      target: 'search',
      result: { entries: [{ path: '$.result.hits[1]', a: 'doc2' }], total: 1 },
    });
    // The second search asked something else: one changed request, not a removed and an added one.
    expect(diff.changes[1]).toMatchObject({
      kind: 'changed',
      a: 2,
      b: 2,
      params: { entries: [{ path: '$.params.arguments.q', a: 'typescript mcp', b: 'brand new' }] },
    });
    expect(diff.changes.slice(2).map((c) => [c.kind, c.a, c.target])).toEqual([
      ['removed', 3, 'search'],
      ['removed', 4, 'now'],
      ['removed', 5, 'fetch'],
    ]);

    const stats = await peer.json<{ tools: { name: string; calls: number }[]; ended: boolean }>(
      'trajectory_stats',
      { name: 'before' },
    );
    expect(stats.ended).toBe(true);
    expect(stats.tools.map((t) => [t.name, t.calls])).toEqual([
      ['fetch', 1],
      ['now', 1],
      ['search', 3],
    ]);
  });

  it.each([
    ['../evil', "cannot contain '/'"],
    ['..', "cannot contain '..'"],
    ['.hidden', "cannot start with '.'"],
    ['a\\b', "cannot contain '/'"],
    ['x'.repeat(129), 'at most 128 characters'],
    ['tab\there', 'must be printable'],
    ['', 'cannot be empty'],
  ])('refuses the name %j with a clear message', async (name, why) => {
    for (const [tool, args] of [
      ['start_recording', { name }],
      ['replay_lookup', { trajectory: name, request: search('x') }],
      ['get_trajectory', { name }],
      ['trajectory_stats', { name }],
    ] as const) {
      const result = await peer.call(tool, args);
      expect(result.isError).toBe(true);
      expect(result.text).toContain(why);
    }
    // Nothing was created anywhere: the data folder holds exactly what the tests recorded.
    expect(readdirSync(data).sort()).toEqual(['after.jsonl', 'before.jsonl', 'my_session.json']);
    expect(existsSync(join(tmp, 'data', 'evil.jsonl'))).toBe(false);
  });

  it('answers a wrong argument type with a tool error, not a crash', async () => {
    const result = await peer.call('get_trajectory', { name: 'before', limit: 0 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('limit');
    expect((await peer.call('list_trajectories')).isError).toBe(false);
  });
});
