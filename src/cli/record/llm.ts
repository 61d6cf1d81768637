import { isLoopback } from '../../base/local-names.js';
import { shownUrl } from '../../proxy/http/url.js';
import { redactText, summarize } from '../../redact/index.js';
import type { TraceFileTarget } from '../../sink/file.js';
import { safeLabel } from '../../sink/naming.js';
import { newMeta } from '../../trace/meta.js';
import type { LiveFlag } from '../flags/live.js';
import { type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, say } from '../io.js';
import { holdSignals } from '../signals.js';
import { type ListenAddress, parseAllowHost } from './http-flags.js';
import { recordingSink } from './live.js';

/** What `record --llm URL` takes. */
export interface LlmRecordOptions extends RuleFlags, LiveFlag {
  llm: URL;
  listen?: ListenAddress;
  allowHost?: string[];
  label?: string;
  maxBytes: number;
  maxFiles: number;
  maxMessageBytes: number;
}

/**
 * `tapedeck record --llm URL`: a recording reverse proxy in front of an LLM provider, until SIGINT or SIGTERM;
 * then the `end` line (reason `producer_shutdown`) and 0. The trace file is created once the listener is up.
 */
export async function recordLlm(
  options: LlmRecordOptions,
  tracePath: (label: string) => TraceFileTarget,
  io: CliIo,
): Promise<number> {
  let stop: (() => void) | undefined;
  let signals = 0;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let hurry: (() => void) | undefined;
  const held = holdSignals(() => {
    signals += 1;
    if (signals === 1) stop?.();
    else hurry?.();
  });
  try {
    const { config, compiled, redactor } = redactionFrom(options, io);
    const out = redactedIo(io, { compiled });
    const allowHosts = (options.allowHost ?? []).map((value) =>
      parseAllowHost(value, (note) => say(out, note)),
    );
    const shown = shownUrl(options.llm.href);
    const label = safeLabel(redactText(options.label ?? `llm-${options.llm.hostname}`, compiled));
    const file = {
      ...tracePath(label),
      maxBytes: options.maxBytes,
      maxFiles: options.maxFiles,
      redact: redactor,
      warn: (message: string) => say(out, message),
    };
    const { sink, close } = await recordingSink(options, label, file, io);
    const { startLlmProxy, LLM_PROXY_DEFAULTS } = await import('../../llm/proxy.js');
    let proxy: Awaited<ReturnType<typeof startLlmProxy>>;
    try {
      proxy = await startLlmProxy({
        upstream: options.llm,
        sink,
        meta: {
          ...newMeta({ label, url: shown, transport: 'http', redaction: summarize(config) }),
          kind: 'llm',
        },
        compiled,
        host: options.listen?.host ?? LLM_PROXY_DEFAULTS.host,
        port: options.listen?.port ?? LLM_PROXY_DEFAULTS.port,
        allowHosts,
        maxMessageBytes: options.maxMessageBytes,
      });
    } catch (err) {
      await close();
      throw err;
    }
    if (!isLoopback(proxy.host)) {
      say(
        io,
        `warning: listening on ${proxy.host}, which other machines can reach; requests still need a local or ` +
          '--allow-host Host header, and carry their own API keys to the provider',
      );
    }
    say(out, `recording ${proxy.url} → ${shown} (trace: ${sink.path})`);
    await stopped;
    hurry = () => void proxy.close(0);
    await proxy.close();
    await sink.close({ reason: 'producer_shutdown' });
    await close();
    return 0;
  } finally {
    held.release();
  }
}
