import { existsSync } from 'node:fs';
import { TapedeckError } from '../../base/errors.js';
import type { RunMode } from '../../live/modes.js';
import { readLlmCalls } from '../../llm/read.js';
import { FileSink } from '../../sink/file.js';
import type { TraceSink } from '../../sink/sink.js';
import { newMeta } from '../../trace/meta.js';
import { type RuleFlags, redactionFrom } from '../flags/rules.js';
import { type CliIo, say } from '../io.js';
import type { ListenAddress } from '../record/http-flags.js';

/** What `run --llm URL` adds: the agent's model calls recorded or replayed beside the MCP session, by the same mode. */
export interface RunLlmOptions {
  upstream: URL;
  /** The LLM cassette (default: the MCP cassette's name with `.llm.jsonl`). */
  file: string;
  listen: ListenAddress | undefined;
  allowUnused: boolean;
  rules: RuleFlags;
}

/** Where `run --llm` keeps the model calls when `--llm-cassette` does not say. */
export function llmCassetteBeside(cassette: string): string {
  return `${cassette.replace(/\.jsonl?$/i, '')}.llm.jsonl`;
}

/** A sink that keeps nothing: `passthrough` forwards model calls without recording them. */
const nowhere: TraceSink = { start: () => {}, append: () => {}, close: async () => {} };

/**
 * Starts the LLM side of a run: `record` records through the proxy, `replay` and `update` answer from the LLM
 * cassette (update applies to the MCP side only), `passthrough` forwards. `close()` stops it and resolves to the
 * exit code it asks for: 1 on a missed model call, or unused ones without --allow-unused.
 *
 * @example const llm = await startRunLlm('record', options, out, io); … const code = await llm.close();
 */
export async function startRunLlm(
  mode: Exclude<RunMode, 'auto'>,
  options: RunLlmOptions,
  out: CliIo,
  io: CliIo,
): Promise<{ close(): Promise<number> }> {
  const host = options.listen?.host ?? '127.0.0.1';
  const port = options.listen?.port ?? 7431;
  const { compiled, redactor } = redactionFrom(options.rules, io);
  if (mode === 'replay' || mode === 'update') {
    if (!existsSync(options.file)) {
      throw new TapedeckError(
        'input',
        `${options.file} does not exist: the model calls of this run were never recorded; record them with --mode record, or name the file with --llm-cassette`,
      );
    }
    const { startLlmReplay } = await import('../../llm/replay.js');
    const calls = await readLlmCalls(options.file);
    const replay = await startLlmReplay({ calls, host, port, compiled });
    say(out, `replaying ${calls.length} model calls from ${options.file} on ${replay.url}`);
    return {
      close: async () => {
        await replay.close();
        const unused = replay.unused();
        say(out, `replayed ${replay.served()}/${calls.length} model calls, ${replay.misses.length} missed`);
        for (const miss of replay.misses) say(out, `  missed ${miss.method} ${miss.path}`);
        for (const call of unused)
          say(out, `  unused ${call.request.call} ${call.request.method} ${call.request.path}`);
        return replay.misses.length > 0 || (unused.length > 0 && !options.allowUnused) ? 1 : 0;
      },
    };
  }
  const { startLlmProxy } = await import('../../llm/proxy.js');
  const sink = mode === 'record' ? new FileSink({ path: options.file, redact: redactor }) : nowhere;
  const proxy = await startLlmProxy({
    upstream: options.upstream,
    sink,
    meta: { ...newMeta({ label: 'llm', transport: 'http', url: options.upstream.origin }), kind: 'llm' },
    compiled,
    host,
    port,
  });
  say(
    out,
    `${mode === 'record' ? 'recording' : 'forwarding'} model calls on ${proxy.url} → ${options.upstream.origin}` +
      (mode === 'record' ? ` (trace: ${options.file})` : ''),
  );
  return {
    close: async () => {
      await proxy.close();
      await sink.close({ reason: 'producer_shutdown' });
      return 0;
    },
  };
}
