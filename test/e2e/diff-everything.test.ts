/**
 * `tapedeck diff` on two real recordings: the official SDK client driving server-everything through
 * `tapedeck record`, twice, the second session asking `get-sum` with another number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/trace/text-width.js';
import { connectClient, everythingServer, makeTempDir, recorded, removeTempDir } from '../helpers/peers.js';
import { spawnTapedeck } from '../helpers/proxy.js';

let dir: string;
let before: string;
let after: string;

/** One recorded session: the same calls each time but for get-sum's `b`. */
async function recordSession(file: string, b: number): Promise<void> {
  const { client } = await connectClient(recorded(everythingServer(), { file }), { capabilities: {} });
  try {
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { message: 'diff me' } });
    await client.callTool({ name: 'get-sum', arguments: { a: 2, b } });
    await client.listPrompts();
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-diff-everything-');
  before = `${dir}/before.jsonl`;
  after = `${dir}/after.jsonl`;
  await recordSession(before, 3);
  await recordSession(after, 4);
});

afterAll(() => removeTempDir(dir));

describe('tapedeck diff on two recordings of server-everything', () => {
  it('reports the one call that changed, with its argument and answer, exit 1', async () => {
    const result = await spawnTapedeck(['diff', before, after]).done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.toString().split('\n');
    const items = lines.filter((line) => /^[=~+-] /.test(line)).map((line) => line.replace(/ {2}\d.*$/, ''));
    expect(items).toEqual([
      '= #1     initialize',
      '= #2     tools/list',
      '= #3     tools/call echo {"message":"diff me"}',
      '~ #4     tools/call get-sum {"a":2,"b":3}',
      '= #5     prompts/list',
    ]);
    const changed = lines.indexOf(lines.find((line) => line.startsWith('~ #4')) as string);
    // 80 columns (a pipe): a change too long for one line shows its two sides one above the other.
    expect(lines.slice(changed + 1, changed + 5)).toEqual([
      '      $.params.arguments.b: 3 → 4',
      '      $.result.content[0].text:',
      '        a "The sum of 2 and 3 is 5."',
      '        b "The sum of 2 and 4 is 6."',
    ]);
    // Too long for one line, the latency closes the report on a line of its own.
    const summary = lines.indexOf('5 requests in a, 5 in b: 4 same, 1 changed, 0 removed, 0 added');
    expect(lines[summary + 1]).toMatch(/^latency [+-]\d+ms in all$/);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
  });

  it('--json names the changed item and where each side of it is in its file', async () => {
    const result = await spawnTapedeck(['diff', before, after, '--json']).done;
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout.toString());
    expect(doc.summary).toMatchObject({ same: 4, changed: 1, added: 0, removed: 0 });
    const changed = doc.items.filter((item: { kind: string }) => item.kind !== 'same');
    expect(changed).toEqual([
      expect.objectContaining({
        kind: 'changed',
        method: 'tools/call',
        target: 'get-sum',
        a: expect.objectContaining({ index: 3, outcome: 'ok', line: expect.any(Number) }),
        b: expect.objectContaining({ index: 3, outcome: 'ok' }),
        params: { entries: [{ path: '$.params.arguments.b', a: 3, b: 4 }], total: 1 },
      }),
    ]);
  });

  it('finds a recording the same as itself, and the changed one the same once the call is left out', async () => {
    const self = await spawnTapedeck(['diff', before, before]).done;
    expect(self.code).toBe(0);
    expect(self.stdout.toString()).toContain('no differences: 5 requests in a, 5 in b, all the same');
    const ignored = await spawnTapedeck([
      'diff',
      before,
      after,
      '--ignore',
      '$.params.arguments.b',
      '--ignore',
      '$.result.content',
    ]).done;
    expect(ignored.code).toBe(0);
  });
});
