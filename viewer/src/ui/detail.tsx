import type { Attribution, Exchange, Json } from 'mcp-tapedeck/trace';
import { formatOffset, idTag } from 'mcp-tapedeck/trace';
import type { ComponentChild } from 'preact';
import { isGuess } from '../data/guess.js';
import type { Finder } from '../data/highlight.js';
import type { TraceModel } from '../data/model.js';
import { isErrorRow, type Row } from '../data/rows.js';
import { formatLatency, rowTitle } from '../data/summary.js';
import { ContentList } from './content.js';
import { CopyButton } from './copy.js';
import { FindContext, Marked } from './highlight.js';
import { JsonTree } from './json-tree.js';
import { RequestTools } from './request-tools.js';

export interface DetailProps {
  model: TraceModel;
  row: Row;
  select: (key: string) => void;
  /** A link to this row that someone else can open. */
  link: () => string;
  openRaw: (src: number, file: string, lineNo: number) => void;
  close: () => void;
  /** The search's matches, marked in the JSON and the text. */
  find?: Finder | undefined;
}

const VIA: Record<Attribution, string> = {
  progressToken: 'its progress token',
  subscriptionId: 'its subscription id',
  requestId: 'the request id it cancels',
  stream: 'the HTTP stream it came on',
  'open-request': 'a guess: the request open when it was sent',
};

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Everything about one message: what it asked, what came back, what belongs to it, and the line itself. */
export function Detail({ model, row, select, link, openRaw, close, find }: DetailProps) {
  const source = model.source(row.src);
  const start = model.start();
  const exchange = row.exchange;
  const facts: ComponentChild[] = [];
  if (exchange) facts.push(<span>{idTag(exchange.id)}</span>);
  if (row.dir) facts.push(<span>{row.dir === 'in' ? 'client → server' : 'server → client'}</span>);
  if (row.server) facts.push(<span>server {row.server}</span>);
  if (model.sources.length > 1 && source) facts.push(<span>{source.info.name}</span>);
  if (row.time !== undefined && start !== undefined)
    facts.push(<span title={new Date(row.time).toISOString()}>{formatOffset(row.time - start)}</span>);
  if (exchange?.latencyMs !== undefined) facts.push(<span>{formatLatency(exchange.latencyMs)}</span>);
  if (exchange) facts.push(<span class={`outcome o-${exchange.outcome}`}>{outcomeText(exchange)}</span>);
  return (
    <FindContext.Provider value={find}>
      <DetailBody
        model={model}
        row={row}
        facts={facts}
        select={select}
        link={link}
        openRaw={openRaw}
        close={close}
      />
    </FindContext.Provider>
  );
}

function DetailBody({
  model,
  row,
  facts,
  select,
  link,
  openRaw,
  close,
}: Omit<DetailProps, 'find'> & { facts: ComponentChild[] }) {
  const exchange = row.exchange;
  return (
    <section
      class="detail"
      // biome-ignore lint/a11y/noRedundantRoles: said outright, for scripts that look for the region by its role
      role="region"
      aria-label={`detail of ${row.kind} ${rowTitle(row)}`}
      data-key={row.key}
    >
      <header class="detail-head">
        <h2 class={isErrorRow(row) ? 'err' : ''}>
          <span class={`kind k-${row.kind}`}>{row.kind}</span> {rowTitle(row)}
        </h2>
        <div class="detail-actions">
          <CopyButton text={link} label="Copy link" />
          <button type="button" class="close" onClick={close} title="Close (Esc)">
            ×
          </button>
        </div>
      </header>
      <div class="facts">
        {facts}
        {row.lineNo > 0 ? (
          <button type="button" class="linkish" onClick={() => openRaw(row.src, row.file, row.lineNo)}>
            line {row.lineNo}
          </button>
        ) : null}
      </div>
      {exchange ? <RequestTools model={model} row={row} exchange={exchange} /> : null}
      {exchange ? (
        <ExchangeDetail model={model} exchange={exchange} select={select} />
      ) : (
        <LineDetail row={row} />
      )}
      {exchange?.parent ? (
        <ParentLink model={model} parent={exchange.parent} via={exchange.via} select={select} />
      ) : null}
      {row.parent ? <ParentLink model={model} parent={row.parent} via={row.via} select={select} /> : null}
      <details class="section">
        <summary>Trace line</summary>
        <div class="section-tools">
          <CopyButton text={() => JSON.stringify(row.line)} label="Copy line" />
        </div>
        <JsonTree value={row.line as unknown as Json} open={1} />
      </details>
    </section>
  );
}

function outcomeText(exchange: Exchange): string {
  if (exchange.cancelled && exchange.outcome === 'unanswered') return 'cancelled';
  return exchange.outcome.replace('_', ' ');
}

function ExchangeDetail({
  model,
  exchange,
  select,
}: {
  model: TraceModel;
  exchange: Exchange;
  select: (key: string) => void;
}) {
  const response = exchange.response;
  const source = model.sources.find((s) => s.requestRow(exchange));
  return (
    <>
      <div class="section">
        <h3>
          Request <span class="muted">{exchange.method}</span>
          <CopyButton text={() => json(exchange.request.params ?? null)} label="Copy params" />
        </h3>
        <JsonTree value={(exchange.request.params ?? null) as Json} open={3} />
      </div>
      <div class="section">
        {response?.error ? (
          <>
            <h3 class="err">
              Error {response.error.code ?? ''}
              <CopyButton text={() => json(response.error)} label="Copy error" />
            </h3>
            <p class="err">
              <Marked text={String(response.error.message ?? '')} />
            </p>
            <JsonTree value={response.error as unknown as Json} open={2} />
          </>
        ) : response ? (
          <>
            <h3 class={exchange.outcome === 'tool_error' ? 'err' : ''}>
              {exchange.outcome === 'tool_error' ? 'Result (isError)' : 'Result'}
              <CopyButton text={() => json(response.result ?? null)} label="Copy result" />
            </h3>
            <ContentList value={response.result} />
            <JsonTree value={response.result ?? null} open={3} />
          </>
        ) : (
          <h3 class="muted">
            {exchange.outcome === 'unanswered' ? 'No response in the trace' : 'Waiting for the response…'}
          </h3>
        )}
      </div>
      {exchange.children.length > 0 ? (
        <div class="section">
          <h3>Belongs to this request ({exchange.children.length})</h3>
          <ul class="children">
            {exchange.children.map((child, i) => {
              const key =
                child.kind === 'exchange'
                  ? source?.requestRow(child.exchange)?.key
                  : `${source?.index ?? 0}.${child.ref.line.seq}${child.ref.item === undefined ? '' : `.${child.ref.item}`}`;
              const label =
                child.kind === 'exchange'
                  ? `${child.exchange.method} ${idTag(child.exchange.id)} · ${child.exchange.outcome}`
                  : child.notification.method;
              return (
                <li key={i}>
                  <button type="button" class="linkish" onClick={() => key && select(key)}>
                    {label}
                  </button>{' '}
                  {isGuess(child.via) ? (
                    <span class="muted guess" data-guess="true">
                      <span class="guess-mark">?</span> a guess: open when it was sent
                    </span>
                  ) : (
                    <span class="muted">via {child.via}</span>
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      ) : null}
    </>
  );
}

function ParentLink({
  model,
  parent,
  via,
  select,
}: {
  model: TraceModel;
  parent: Exchange;
  via: Attribution | undefined;
  select: (key: string) => void;
}) {
  const key = model.sources.map((s) => s.requestRow(parent)?.key).find((k) => k !== undefined);
  const guess = isGuess(via);
  return (
    <div class={`section parent${guess ? ' guessed' : ''}`} data-guess={guess}>
      {guess ? (
        <>
          <span class="guess-mark">?</span> Maybe belongs to{' '}
        </>
      ) : (
        'Part of '
      )}
      <button type="button" class="linkish" onClick={() => key && select(key)}>
        {parent.method} {idTag(parent.id)}
      </button>
      {via ? (
        <span class={guess ? 'muted guess' : 'muted'}>
          {' '}
          — {guess ? `${VIA[via]}; nothing on the wire ties them` : `tied by ${VIA[via]}`}
        </span>
      ) : null}
    </div>
  );
}

function LineDetail({ row }: { row: Row }) {
  if (row.kind === 'text' || row.kind === 'stderr') {
    return (
      <div class="section">
        <pre class={`c-text ${row.kind}`}>
          <Marked text={String((row.line as { text?: unknown }).text ?? '')} />
        </pre>
      </div>
    );
  }
  if (row.notification) {
    return (
      <div class="section">
        <h3>
          Params
          <CopyButton text={() => json(row.notification?.params ?? null)} label="Copy params" />
        </h3>
        <ContentList value={(row.notification.params ?? null) as Json} />
        <JsonTree value={(row.notification.params ?? null) as Json} open={3} />
      </div>
    );
  }
  if (row.response) {
    return (
      <div class="section">
        <h3 class="err">A response to no request in the trace</h3>
        <JsonTree value={(row.response.error ?? row.response.result ?? null) as Json} open={3} />
      </div>
    );
  }
  if (row.kind === 'invalid') return <p class="section err">{row.reason}</p>;
  return null;
}
