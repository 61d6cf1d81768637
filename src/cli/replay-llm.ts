import { readLlmCalls } from '../llm/read.js';
import { EXIT } from './errors.js';
import { type RuleFlags, redactedIo, redactionFrom } from './flags/rules.js';
import { type CliIo, say, userPath } from './io.js';
import type { ListenAddress } from './record/http-flags.js';
import { holdSignals } from './signals.js';

export interface LlmReplayFlags extends RuleFlags {
  llm: string;
  listen?: ListenAddress;
  allowHost?: string[];
  allowUnused?: boolean;
  timing?: string;
}

/**
 * `tapedeck replay --llm <trace>`: answers the recorded model calls on a listener until SIGINT or SIGTERM, then
 * says how many were served, lists the misses and the calls never asked for. Exit 1 on a miss or an unused call
 * (unless --allow-unused).
 */
export async function replayLlm(flags: LlmReplayFlags, io: CliIo): Promise<number> {
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const held = holdSignals(() => stop?.());
  try {
    const redaction = redactionFrom(flags, io);
    const out = redactedIo(io, redaction);
    const calls = await readLlmCalls(userPath(io, flags.llm));
    const { startLlmReplay } = await import('../llm/replay.js');
    const replay = await startLlmReplay({
      calls,
      host: flags.listen?.host ?? '127.0.0.1',
      port: flags.listen?.port ?? 7431,
      allowHosts: flags.allowHost ?? [],
      compiled: redaction.compiled,
      timing: flags.timing === 'recorded' ? 'recorded' : 'none',
      onMiss: (miss) => say(out, `miss: ${miss.method} ${miss.path.split('?')[0]} matches no recorded call`),
    });
    say(out, `replaying ${calls.length} model calls from ${flags.llm} on ${replay.url}`);
    await stopped;
    await replay.close();
    const unused = replay.unused();
    say(out, `replayed ${replay.served()}/${calls.length} model calls, ${replay.misses.length} missed`);
    for (const miss of replay.misses) {
      say(
        out,
        `  missed ${miss.method} ${miss.path}${miss.nearest ? `; nearest recorded: ${miss.nearest.slice(0, 200)}` : ''}`,
      );
    }
    for (const call of unused)
      say(out, `  unused ${call.request.call} ${call.request.method} ${call.request.path}`);
    const failed = replay.misses.length > 0 || (unused.length > 0 && flags.allowUnused !== true);
    return failed ? EXIT.finding : EXIT.ok;
  } finally {
    held.release();
  }
}
