import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TraceModel } from '../../../viewer/src/data/model.js';
import { type BootPage, chooseSource, TRACE_SCRIPT_TYPE } from '../../../viewer/src/source/boot.js';
import { expectedRows, MCP_TAPE } from '../traces.js';

/** A stand-in for the document: the data elements of a report and the config element of `tapedeck view`. */
function page(options: { traces?: { path?: string; text: string }[]; config?: string }): BootPage {
  const traces = (options.traces ?? []).map((t) => ({
    getAttribute: (name: string) => (name === 'data-path' ? (t.path ?? null) : null),
    textContent: t.text,
  }));
  return {
    querySelectorAll: (selector) => (selector === `script[type="${TRACE_SCRIPT_TYPE}"]` ? traces : []),
    getElementById: (id) =>
      id === 'tapedeck-config' && options.config !== undefined
        ? { getAttribute: () => null, textContent: options.config }
        : null,
  };
}

/** Every request the page makes, answered from `answers` (by URL) or refused. */
function fakeFetch(answers: Record<string, () => Response>) {
  const asked: { url: string; authorization: string | undefined }[] = [];
  vi.stubGlobal('fetch', async (input: URL | string, init?: RequestInit) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    asked.push({ url, authorization: headers.get('authorization') ?? undefined });
    const answer = answers[url];
    if (!answer) throw new TypeError('fetch failed');
    return answer();
  });
  return asked;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the page picks its trace source once, from the page itself', () => {
  it('takes the traces a report embeds, with the network never asked', async () => {
    const asked = fakeFetch({});
    const text = readFileSync(MCP_TAPE, 'utf8');
    const source = chooseSource(
      page({
        traces: [
          { path: 'r0/everything-stdio.jsonl', text },
          // As `tapedeck report` writes it: `<` escaped, so no line can close the element.
          {
            text: `${JSON.stringify({ v: 1, type: 'meta', startedAt: '2026-11-29T10:00:00.000Z', label: 'x' })}\n${JSON.stringify({ t: '2026-11-29T10:00:00.001Z', seq: 1, type: 'stderr', text: '</script>' }).replace(/</g, '\\u003c')}\n`,
          },
        ],
      }),
      'file:///home/ada/report.html#/timeline',
    );
    expect(source.kind).toBe('report');
    expect(source.capabilities).toEqual({
      own: true,
      list: false,
      follow: false,
      search: false,
      openFiles: false,
    });
    expect(await source.list()).toBeUndefined();
    const model = new TraceModel();
    await source.open(model).ready;
    expect(model.sources.map((s) => s.info.name)).toEqual(['everything-stdio.jsonl', '1.jsonl']);
    expect(model.sources[0]!.rows).toHaveLength(expectedRows(text));
    expect(model.sources[1]!.rows[0]!.line).toMatchObject({ type: 'stderr', text: '</script>' });
    expect(model.sources[1]!.rows[0]!.file).toBe('report/1.jsonl');
    expect(asked).toEqual([]);
  });

  it('takes the files `tapedeck view` serves, under the token in the page’s address', async () => {
    const text = readFileSync(MCP_TAPE, 'utf8');
    const base = 'http://127.0.0.1:4321/0123abcd/';
    const asked = fakeFetch({
      [`${base}api/files`]: () =>
        Response.json({
          files: [{ path: 'd0/everything-stdio.jsonl', size: text.length, url: 'api/files/0' }],
        }),
      [`${base}api/files/0`]: () => new Response(text),
    });
    const source = chooseSource(
      page({ config: '{"mode":"files","api":"api/"}' }),
      `${base}#/calls?sort=tool`,
    );
    expect(source.kind).toBe('served');
    expect(source.capabilities).toEqual({
      own: true,
      list: false,
      follow: false,
      search: false,
      openFiles: true,
    });
    const model = new TraceModel();
    await source.open(model).ready;
    expect(model.failures).toEqual([]);
    expect(model.rows()).toHaveLength(expectedRows(text));
    expect(asked.map((a) => a.url)).toEqual([`${base}api/files`, `${base}api/files/0`]);
  });

  it('otherwise reads from the collector serving the page, with the token the page was opened with', async () => {
    const asked = fakeFetch({
      'http://collector.test:7420/api/v1/traces': () =>
        Response.json({ traces: [{ id: 'Qx', label: 'calls', state: 'live' }] }),
    });
    // A broken config is the same as none.
    const fromQuery = chooseSource(
      page({ config: '{mode: files' }),
      'http://collector.test:7420/?token=t1#/',
    );
    expect(fromQuery.kind).toBe('collector');
    expect(fromQuery.capabilities).toEqual({
      own: false,
      list: true,
      follow: true,
      search: true,
      openFiles: true,
    });
    expect(await fromQuery.list()).toEqual([
      {
        id: 'Qx',
        label: 'calls',
        startedAt: undefined,
        live: true,
        state: 'live',
        durationMs: undefined,
        server: undefined,
        requests: 0,
        errors: 0,
        session: undefined,
      },
    ]);
    const fromHash = chooseSource(page({}), 'http://collector.test:7420/#/trace/Qx/timeline?token=t2');
    await fromHash.list();
    const none = chooseSource(page({}), 'http://collector.test:7420/index.html');
    await none.list();
    expect(asked).toEqual([
      { url: 'http://collector.test:7420/api/v1/traces', authorization: 'Bearer t1' },
      { url: 'http://collector.test:7420/api/v1/traces', authorization: 'Bearer t2' },
      { url: 'http://collector.test:7420/api/v1/traces', authorization: undefined },
    ]);
  });

  it('finds no list on a copy with nothing behind it', async () => {
    fakeFetch({});
    const source = chooseSource(page({}), 'file:///home/ada/viewer/index.html#/');
    expect(source.kind).toBe('collector');
    expect(await source.list()).toBeUndefined();
  });
});
