import type { Exchange } from 'mcp-tapedeck/trace';
import { useState } from 'preact/hooks';
import { cassetteOf, curlCommand, httpHeadOf, jsonRpcLine, rawItem } from '../data/copy-as.js';
import { exportName } from '../data/export.js';
import type { TraceModel } from '../data/model.js';
import { pagedAttachment } from '../data/paged-rows.js';
import { progressOf } from '../data/progress.js';
import type { Row } from '../data/rows.js';
import { copyText } from './copy.js';
import { download } from './download.js';
import { ProgressBar } from './progress-bar.js';
import './actions.css';

export interface RequestToolsProps {
  model: TraceModel;
  row: Row;
  exchange: Exchange;
}

type Outcome = { text: string; ok: boolean };

/**
 * What the detail pane offers for a request: how far it got (its progress notifications as a bar), and the
 * request copied in a form another tool runs — a JSON-RPC line, a `curl` command (HTTP recordings) and a minimal
 * cassette (copied, or saved as a file) that `tapedeck replay` serves.
 */
export function RequestTools({ model, row, exchange }: RequestToolsProps) {
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const source = model.source(row.src);
  const progress = progressOf(exchange);
  // A paged trace's rows stay on the server: the HTTP head and the handshake a curl or a cassette needs are not here.
  const whole = pagedAttachment(exchange) === undefined;
  const requestRow = source?.requestRow(exchange) ?? row;
  const head = source ? httpHeadOf(source.rows, requestRow) : undefined;
  const curl = head && source ? curlCommand(head, rawItem(exchange.requestRef), source.info.meta) : undefined;
  const cassette = () =>
    cassetteOf(
      { rows: source?.rows ?? [], meta: source!.info.meta, requestRow: (e) => source?.requestRow(e) },
      exchange,
    );
  const report = (text: string, ok: boolean) => {
    setOutcome({ text, ok });
    setTimeout(() => setOutcome(undefined), 1600);
  };
  const copy = async (label: string, text: () => string | Promise<string>) => {
    const ok = await copyText(await text());
    report(ok ? `Copied as ${label}` : `Could not copy as ${label}`, ok);
  };
  return (
    <div class="request-tools">
      {progress ? <ProgressBar progress={progress} /> : null}
      {source ? (
        <fieldset class="copy-as" aria-label="copy the request as">
          <span class="muted">Copy as</span>
          <button type="button" class="copy" onClick={() => copy('JSON-RPC', () => jsonRpcLine(exchange))}>
            JSON-RPC
          </button>
          {whole ? (
            <>
              <button
                type="button"
                class="copy"
                disabled={curl === undefined}
                title={
                  curl === undefined
                    ? 'curl needs the HTTP request, and this request did not come over HTTP'
                    : curl.redacted.length > 0
                      ? `${curl.redacted.join(', ')} stay redacted: put real values in before running`
                      : 'the recorded HTTP request as a curl command'
                }
                onClick={() => curl && copy('curl', () => curl.text)}
              >
                curl
              </button>
              <button type="button" class="copy" onClick={() => copy('cassette', cassette)}>
                cassette
              </button>
              <button
                type="button"
                class="copy"
                title="save a minimal cassette of this request (tapedeck replay serves it)"
                onClick={async () => {
                  const name = exportName(
                    source.info.name,
                    `${exchange.method.replace(/\W+/g, '-')}-${exchange.ordinal}`,
                    'jsonl',
                  );
                  download({ name, type: 'application/x-ndjson', text: await cassette() });
                  report(`Saved ${name}`, true);
                }}
              >
                Save cassette
              </button>
            </>
          ) : (
            <span class="muted" title="tapedeck view --no-paged opens the trace whole">
              curl and cassette need the whole trace
            </span>
          )}
          {outcome ? (
            <span class={outcome.ok ? 'muted copied' : 'err copied'} role="status">
              {outcome.text}
            </span>
          ) : null}
        </fieldset>
      ) : null}
    </div>
  );
}
