/**
 * An LLM cassette for tests: the first run records the agent's model calls through the recording proxy into a file,
 * later runs answer them from it with no provider. The mode comes from the option, else `TAPEDECK_MODE`, else
 * `auto` (replay when the file exists).
 */
import { existsSync } from 'node:fs';
import { TapedeckError } from '../base/errors.js';
import { compile } from '../redact/compile.js';
import { redactorOf } from '../redact/engine.js';
import { FileSink } from '../sink/file.js';
import { newMeta } from '../trace/meta.js';
import type { LlmMiss } from './match.js';
import { startLlmProxy } from './proxy.js';
import { type LlmCall, readLlmCalls } from './read.js';
import { startLlmReplay } from './replay.js';

export type LlmCassetteMode = 'auto' | 'record' | 'replay';

export interface LlmCassetteOptions {
  /** The cassette file (tapedeck JSONL, as `record --llm` writes). */
  file: string;
  /** The provider's base URL, for recording (`https://api.anthropic.com`). */
  upstream?: string;
  mode?: LlmCassetteMode;
}

export interface LlmCassette {
  /** What the agent's SDK takes as its base URL (OpenAI clients: this plus `/v1`). */
  readonly url: string;
  /** What this run did: recorded the calls, or replayed them. */
  readonly mode: 'record' | 'replay';
  /** Stops; for a replay, what was missed and what was never asked for. */
  close(): Promise<{ misses: LlmMiss[]; unused: LlmCall[] }>;
  /** For a replay, what was missed and what was not asked for yet; empty lists for a recording. */
  report(): { misses: LlmMiss[]; unused: LlmCall[] };
}

const MODES: readonly LlmCassetteMode[] = ['auto', 'record', 'replay'];

/**
 * Starts recording or replaying, by mode.
 *
 * @example
 * const llm = await useLlmCassette({ file: 'fixtures/agent-llm.jsonl', upstream: 'https://api.anthropic.com' });
 * const model = new Anthropic({ baseURL: llm.url }); … const { misses } = await llm.close();
 */
export async function useLlmCassette(options: LlmCassetteOptions): Promise<LlmCassette> {
  const fromEnv = process.env.TAPEDECK_MODE as LlmCassetteMode | undefined;
  const asked = options.mode ?? (fromEnv !== undefined && MODES.includes(fromEnv) ? fromEnv : 'auto');
  const mode = asked === 'auto' ? (existsSync(options.file) ? 'replay' : 'record') : asked;
  if (mode === 'replay' && !existsSync(options.file))
    throw new TapedeckError(
      'usage',
      `the LLM cassette ${options.file} does not exist: record it first (mode record, or TAPEDECK_MODE=record)`,
    );
  const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
  if (mode === 'replay') {
    const replay = await startLlmReplay({ calls: await readLlmCalls(options.file), compiled });
    return {
      url: replay.url,
      mode,
      close: async () => {
        await replay.close();
        return { misses: [...replay.misses], unused: replay.unused() };
      },
      report: () => ({ misses: [...replay.misses], unused: replay.unused() }),
    };
  }
  if (options.upstream === undefined) {
    throw new TapedeckError(
      'usage',
      `${options.file} does not exist yet and there is no upstream to record it from: give upstream (the provider's base URL), or record the cassette first`,
    );
  }
  const sink = new FileSink({ path: options.file, redact: redactorOf(compiled) });
  const proxy = await startLlmProxy({
    upstream: new URL(options.upstream),
    sink,
    meta: { ...newMeta({ label: 'llm-cassette', transport: 'http', url: options.upstream }), kind: 'llm' },
    compiled,
    port: 0,
  });
  return {
    url: proxy.url,
    mode,
    close: async () => {
      await proxy.close(0);
      await sink.close({ reason: 'producer_shutdown' });
      return { misses: [], unused: [] };
    },
    report: () => ({ misses: [], unused: [] }),
  };
}
