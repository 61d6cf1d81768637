import { afterAll, beforeAll, expect } from 'vitest';
import type { Collector } from '../../src/collector/index.js';
import { type BrowserSuite, browserSuite } from './browser.js';
import { startTestCollector } from './live-session.js';
import { jsonl } from './open-model.js';

/** A browser suite with a collector beside it: see {@link collectorSuite}. */
export interface CollectorSuite extends BrowserSuite {
  /** The collector's address (`http://127.0.0.1:<port>`). */
  url(): string;
  /** A call of the collector's API with the suite's token. */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** A live trace, empty; its id. */
  liveTrace(label: string): Promise<string>;
  /** Lines appended to a live trace, as a recorder streams them. */
  append(id: string, lines: readonly object[]): Promise<void>;
  /** The collector goes away, as on a restart. */
  stop(): Promise<void>;
  /** The collector comes back on the port it had (or starts on a free one, the first time). */
  start(): Promise<void>;
}

/**
 * A browser suite whose pages are served by a real collector (in process, its token `token`): started after the
 * browser, closed after the suite. A page may log the collector going away on purpose (a failed websocket, a
 * refused connection); nothing else.
 *
 * @example const suite = collectorSuite('tapedeck-viewer-follow-', TOKEN); const page = await suite.visit(`${suite.url()}/#/`);
 */
export function collectorSuite(prefix: string, token: string): CollectorSuite {
  const suite = browserSuite(prefix, /WebSocket connection to .* failed|ERR_CONNECTION_REFUSED/);
  let collector: Collector | undefined;
  let port = 0;
  const running = () => {
    if (!collector) throw new Error('the collector is started in beforeAll: use it inside a test');
    return collector;
  };
  const start = async () => {
    collector = await startTestCollector(suite.dir(), token, port);
    port = collector.port;
  };
  beforeAll(start);
  afterAll(() => collector?.close());
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${running().url}${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });
  return {
    ...suite,
    url: () => running().url,
    api,
    liveTrace: async (label) => {
      const created = await api('/api/v1/traces/live', { method: 'POST', body: JSON.stringify({ label }) });
      return ((await created.json()) as { id: string }).id;
    },
    append: async (id, lines) => {
      const response = await api(`/api/v1/traces/${id}/lines`, { method: 'POST', body: jsonl(lines) });
      expect(response.status).toBe(200);
    },
    stop: () => running().close(),
    start,
  };
}
