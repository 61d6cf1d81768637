/**
 * Faults through replayTransport, with the official SDK's Client in process: every kind, the requests it names
 * and only those, the same seed the same faults, and the report.
 */
import { describe, expect, it } from 'vitest';
import { TapedeckError } from '../../../src/base/errors.js';
import { replayTransport } from '../../../src/replay/sdk/replay-transport.js';
import { makeClient } from '../../helpers/sdk-session.js';
import { fixtureCassette } from '../helpers.js';

const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';
const echo = { name: 'echo', arguments: { message: 'hello' } };
const sum = { name: 'get-sum', arguments: { a: 1, b: 2 } };

/** A client connected to the everything cassette with `faults`. */
async function connect(faults: string[], seed = 1) {
  const transport = replayTransport(await fixtureCassette(EVERYTHING), { faults, seed, repeat: 'last' });
  const { client } = makeClient();
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, transport, errors };
}

describe('replayTransport with faults', () => {
  it('answers the named call with an injected JSON-RPC error, and the others as recorded', async () => {
    const { client, transport } = await connect(['error=-32000@tools/call:echo']);
    const failure = await client.callTool(echo).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32000 });
    expect(String((failure as Error).message)).toContain(
      'Injected fault: error -32000 (tapedeck --fault error=-32000@tools/call:echo)',
    );
    expect(await client.callTool(sum)).toMatchObject({
      content: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }],
    });
    expect(transport.report().faults).toEqual([
      {
        kind: 'error',
        fault: 'error=-32000@tools/call:echo',
        id: 1,
        method: 'tools/call',
        target: 'echo',
        nth: 1,
        code: -32000,
      },
    ]);
    await client.close();
  });

  it('answers a tool-error with isError: true', async () => {
    const { client } = await connect(['tool-error@tools/call:get-sum']);
    const result = await client.callTool(sum);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Injected fault: the tool failed');
    await client.close();
  });

  it('delays by latency, and leaves unnamed requests alone', async () => {
    const { client, transport } = await connect(['latency=150@tools/call:echo']);
    let started = Date.now();
    await client.callTool(sum);
    const plain = Date.now() - started;
    started = Date.now();
    await client.callTool(echo);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(plain).toBeLessThan(140);
    expect(transport.report().faults).toMatchObject([{ kind: 'latency', delayMs: 150, id: 2 }]);
    await client.close();
  });

  it('never answers a dropped request (the client times out), and answers a duplicate twice', async () => {
    const { client, errors } = await connect(['drop@tools/call:echo', 'duplicate@tools/call:get-sum']);
    const dropped = await client.callTool(echo, undefined, { timeout: 300 }).catch((error: unknown) => error);
    expect(String((dropped as Error).message)).toMatch(/timed out/i);
    expect(await client.callTool(sum)).toMatchObject({ content: [{ text: 'The sum of 1 and 2 is 3.' }] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The second copy answers a request the client no longer waits for: its Protocol says so.
    expect(errors.map((e) => e.message).join('\n')).toMatch(/unknown message ID/i);
    await client.close();
  });

  it('hands a malformed answer to the client as the parse error its transport reports', async () => {
    const { client, errors } = await connect(['malformed@tools/call:echo']);
    const failure = await client.callTool(echo, undefined, { timeout: 300 }).catch((error: unknown) => error);
    expect(String((failure as Error).message)).toMatch(/timed out/i);
    expect(errors.some((e) => e instanceof SyntaxError)).toBe(true);
    await client.close();
  });

  it('closes the transport on disconnect: the pending call fails with the connection', async () => {
    const { client, transport } = await connect(['disconnect@tools/call:echo']);
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    const failure = await client.callTool(echo).catch((error: unknown) => error);
    expect(String((failure as Error).message)).toMatch(/connection closed/i);
    expect(closed).toBe(true);
    expect(transport.report().faults.map((f) => f.kind)).toEqual(['disconnect']);
  });

  it('slows an answer down by the time its bytes take at the given rate', async () => {
    const { client } = await connect(['slow-stream=500/s@tools/call:get-sum']);
    const started = Date.now();
    await client.callTool(sum);
    // The recorded answer is about 100 bytes: a fifth of a second at 500 B/s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    await client.close();
  });

  it('draws %PERCENT from the seed: two runs with one seed fault the same calls', async () => {
    const run = async (seed: number) => {
      const { client, transport } = await connect(['error@tools/call:get-sum%50'], seed);
      const outcomes: string[] = [];
      for (let i = 0; i < 12; i++)
        outcomes.push(
          await client.callTool(sum).then(
            () => 'ok',
            () => 'error',
          ),
        );
      await client.close();
      return { outcomes, faults: transport.report().faults.map((f) => f.nth) };
    };
    const first = await run(11);
    expect(await run(11)).toEqual(first);
    expect(first.outcomes).toContain('ok');
    expect(first.outcomes).toContain('error');
  });

  it('refuses a MATCH that names nothing in the cassette, naming what it has', async () => {
    const transport = replayTransport(await fixtureCassette(EVERYTHING), {
      faults: ['drop@tools/call:serch'],
    });
    const { client } = makeClient();
    const failure = await client.connect(transport).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TapedeckError);
    expect((failure as Error).message).toMatch(
      /^fault 'drop@tools\/call:serch' names tool 'serch', which the cassette never asks for \(it has: echo, get-sum,/,
    );
  });
});
