/**
 * Every TraceSink tapedeck records through, held to one contract (contract.ts): in memory, a trace file, a live
 * trace on a collector (in process, through its app), a file teed to a collector, a sink that starts only once a
 * message crossed, and a cassette recorded aside and settled onto its path as `tapedeck run` does.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openCollectorApp } from '../../src/collector/app.js';
import { recordingPathFor, settleRecording } from '../../src/sink/cassette-file.js';
import { CollectorSink, LiveFileSink } from '../../src/sink/collector.js';
import { DeferredSink } from '../../src/sink/deferred.js';
import { FileSink } from '../../src/sink/file.js';
import { MemorySink } from '../../src/sink/memory.js';
import { IN_PROCESS_URL, inProcessFetch, TEST_TOKEN } from '../collector/helpers.js';
import { scratchDir } from '../helpers/scratch.js';
import { parseJsonl, sinkContract } from './contract.js';

/** A fresh folder for one sink, removed by its cleanup. */
function folder(prefix: string) {
  const dir = scratchDir(`tapedeck-contract-${prefix}-`);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A collector in process, its trace read back as JSONL through the API. */
function collectorIn(dir: string) {
  const collector = openCollectorApp({ dbPath: join(dir, 'tapedeck.db'), token: TEST_TOKEN });
  const fetch = inProcessFetch(collector);
  return {
    collector,
    fetch,
    async jsonl(id: string | undefined): Promise<string> {
      if (id === undefined) throw new Error('the collector sink never created its live trace');
      const response = await fetch(`${IN_PROCESS_URL}/api/v1/traces/${id}/trace.jsonl`, {
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      });
      if (!response.ok) throw new Error(`trace.jsonl answered ${response.status}`);
      return response.text();
    },
  };
}

sinkContract('MemorySink', ({ redact }) => {
  const sink = new MemorySink({ redact });
  return {
    sink,
    stored: async () => parseJsonl(sink.text.join('')),
    storedText: async () => sink.text.join(''),
  };
});

sinkContract('FileSink', ({ redact }) => {
  const { dir, remove } = folder('file');
  const path = join(dir, 'traces', 'session.jsonl');
  const sink = new FileSink({ path, redact });
  const text = async () => readFileSync(path, 'utf8');
  return { sink, stored: async () => parseJsonl(await text()), storedText: text, cleanup: remove };
});

sinkContract('CollectorSink', ({ redact }) => {
  const { dir, remove } = folder('collector');
  const live = collectorIn(dir);
  const sink = new CollectorSink({ url: IN_PROCESS_URL, token: TEST_TOKEN, redact, fetch: live.fetch });
  const text = () => live.jsonl(sink.poster.id);
  return {
    sink,
    stored: async () => parseJsonl(await text()),
    storedText: text,
    cleanup: () => {
      live.collector.close();
      remove();
    },
  };
});

sinkContract('LiveFileSink (a file teed to a collector)', ({ redact }) => {
  const { dir, remove } = folder('live-file');
  const live = collectorIn(dir);
  const path = join(dir, 'live.jsonl');
  const sink = new LiveFileSink({
    path,
    redact,
    collector: { url: IN_PROCESS_URL, token: TEST_TOKEN, fetch: live.fetch },
  });
  const file = async () => readFileSync(path, 'utf8');
  return {
    sink,
    // The file is the record; the collector must hold the very same lines.
    stored: async () => {
      const lines = parseJsonl(await file());
      const teed = parseJsonl(await live.jsonl(sink.poster.id));
      if (JSON.stringify(teed) !== JSON.stringify(lines))
        throw new Error('the collector holds other lines than the file');
      return lines;
    },
    storedText: async () => `${await file()}${await live.jsonl(sink.poster.id)}`,
    cleanup: () => {
      live.collector.close();
      remove();
    },
  };
});

sinkContract('DeferredSink (over a MemorySink)', ({ redact }) => {
  const inner = new MemorySink({ redact });
  return {
    sink: new DeferredSink(inner),
    stored: async () => parseJsonl(inner.text.join('')),
    storedText: async () => inner.text.join(''),
  };
});

sinkContract(
  'the cassette file `tapedeck run` writes (recorded aside, settled onto the cassette)',
  ({ redact }) => {
    const { dir, remove } = folder('cassette');
    const cassette = join(dir, 'fixtures', 'session.jsonl');
    const recording = recordingPathFor(cassette);
    const sink = new DeferredSink(
      new FileSink({ path: recording, redact, maxBytes: Number.MAX_SAFE_INTEGER }),
    );
    let settled: Promise<unknown> | undefined;
    const text = async () => {
      settled ??= settleRecording(recording, cassette, {
        startedAt: Date.now(),
        env: { TAPEDECK_HOME: join(dir, 'home') },
      });
      await settled;
      return readFileSync(cassette, 'utf8');
    };
    return { sink, stored: async () => parseJsonl(await text()), storedText: text, cleanup: remove };
  },
);
