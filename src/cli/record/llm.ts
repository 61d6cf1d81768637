import { isLoopback } from '../../base/local-names.js';
import { shownUrl } from '../../proxy/http/url.js';
import { redactText, summarize } from '../../redact/index.js';
import type { FileSink, TraceFileTarget } from '../../sink/file.js';
import { safeLabel } from '../../sink/naming.js';
import { newMeta } from '../../trace/meta.js';
import type { LiveFlag } from '../flags/live.js';
import { type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, say } from '../io.js';
import { type ListenAddress, parseAllowHost } from './http-flags.js';
import { runListening, stopOnSignals } from './listening.js';

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
  const signals = stopOnSignals();
  try {
    const redaction = redactionFrom(options, io);
    const { config, compiled } = redaction;
    const out = redactedIo(io, { compiled });
    const allowHosts = (options.allowHost ?? []).map((value) =>
      parseAllowHost(value, (note) => say(out, note)),
    );
    const shown = shownUrl(options.llm.href);
    const label = safeLabel(redactText(options.label ?? `llm-${options.llm.hostname}`, compiled));
    const start = async (sink: FileSink) => {
      const { startLlmProxy, LLM_PROXY_DEFAULTS } = await import('../../llm/proxy.js');
      return startLlmProxy({
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
    };
    const recording = { label, shown, flags: options, tracePath, redaction, io, out, start };
    await runListening(recording, signals, ({ host }) => {
      if (isLoopback(host)) return;
      say(
        io,
        `warning: listening on ${host}, which other machines can reach; requests still need a local or ` +
          '--allow-host Host header, and carry their own API keys to the provider',
      );
    });
    return 0;
  } finally {
    signals.release();
  }
}
