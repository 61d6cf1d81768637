import type { Json } from 'mcp-tapedeck/trace';
import { useMemo } from 'preact/hooks';
import { displayName } from '../data/load.js';
import type { SourceModel } from '../data/source-model.js';
import { formatBytes } from '../data/summary.js';
import { CopyButton } from './copy.js';
import { JsonTree } from './json-tree.js';
import { keyStep, VirtualList } from './virtual-list.js';
import { WrappedList } from './wrapped-list.js';

export interface RawProps {
  source: SourceModel;
  version: number;
  file: string | undefined;
  line: number | undefined;
  show: (file: string, line: number | undefined) => void;
  /** Jump to the timeline row of a line, when it has one. */
  reveal: (key: string) => void;
  /** Lines wrap to the list's width instead of being cut at its edge. */
  wrap: boolean;
  setWrap: (wrap: boolean) => void;
}

/** Characters of a line shown in the list; the whole line is in the pane below. */
const SHOWN = 600;
/** Characters of a wrapped line shown in the list (a multi-MB line is not worth laying out whole). */
const SHOWN_WRAPPED = 4000;
const WRAP_LINE_HEIGHT = 18;

/** The trace file as written: JSONL with line numbers, one file of a rotated trace at a time. */
export function Raw({ source, version, file, line, show, reveal, wrap, setWrap }: RawProps) {
  const files = source.info.files;
  const raw = files.find((f) => f.path === file) ?? files[files.length - 1];
  const count = raw?.lineCount() ?? 0;
  const rowKey = useMemo(() => {
    if (!raw || line === undefined) return undefined;
    return source.rows.find((r) => r.file === raw.path && r.lineNo === line)?.key;
  }, [raw, line, version]);
  if (!raw) return <p class="empty">This trace has no file text to show.</p>;
  const width = String(count).length;
  const onKeyDown = (event: KeyboardEvent) => {
    const next = keyStep(event, (line ?? 0) - 1, count, 20);
    if (next !== undefined) show(raw.path, next + 1);
  };
  const render = (i: number) => {
    const n = i + 1;
    const text = raw.line(n, SHOWN);
    return (
      // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox around the rows handles the keys (arrows, Page Up/Down, Home, End)
      <div
        key={n}
        tabIndex={-1}
        class={`raw-line${n === line ? ' sel' : ''}`}
        role="option"
        data-line={n}
        onClick={() => show(raw.path, n)}
      >
        <span class="ln">{String(n).padStart(width, ' ')}</span>
        <code>{text}</code>
      </div>
    );
  };
  const renderWrapped = (i: number, height: number) => {
    const n = i + 1;
    const length = raw.lineLength(n);
    return (
      // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox around the rows handles the keys (arrows, Page Up/Down, Home, End)
      <div
        key={n}
        tabIndex={-1}
        class={`raw-line wrap${n === line ? ' sel' : ''}`}
        role="option"
        data-line={n}
        style={{ height: `${height}px`, gridTemplateColumns: `${width}ch 1fr` }}
        onClick={() => show(raw.path, n)}
      >
        <span class="ln">{String(n).padStart(width, ' ')}</span>
        <code>
          {raw.line(n, SHOWN_WRAPPED)}
          {length > SHOWN_WRAPPED ? (
            <span class="muted"> … {formatBytes(length)} in all: the pane below has it whole</span>
          ) : null}
        </code>
      </div>
    );
  };
  return (
    <div class="raw">
      <div class="raw-files">
        {files.map((f) => (
          <button
            type="button"
            key={f.path}
            class={f === raw ? 'tab active' : 'tab'}
            onClick={() => show(f.path, undefined)}
          >
            {displayName(f.path)} <span class="muted">{formatBytes(f.size())}</span>
          </button>
        ))}
        <span class="muted">{count} lines</span>
        <label class="check wrap-toggle">
          <input
            type="checkbox"
            aria-label="wrap lines"
            checked={wrap}
            onChange={(e) => setWrap((e.currentTarget as HTMLInputElement).checked)}
          />
          Wrap lines
        </label>
      </div>
      {wrap ? (
        <WrappedList
          class="raw-list"
          label="raw lines"
          count={count}
          length={(i) => raw.lineLength(i + 1)}
          maxChars={SHOWN_WRAPPED}
          lineHeight={WRAP_LINE_HEIGHT}
          // The line number and two characters after it; the row's padding and the scroll bar.
          gutterChars={width + 2}
          gutterPx={36}
          render={renderWrapped}
          scrollToIndex={line === undefined ? undefined : line - 1}
          onKeyDown={onKeyDown}
          version={version}
        />
      ) : (
        <VirtualList
          class="raw-list"
          label="raw lines"
          count={count}
          rowHeight={22}
          render={render}
          scrollToIndex={line === undefined ? undefined : line - 1}
          onKeyDown={onKeyDown}
        />
      )}
      {line !== undefined ? (
        <RawLine text={raw.line(line)} line={line} rowKey={rowKey} reveal={reveal} />
      ) : null}
    </div>
  );
}

function RawLine({
  text,
  line,
  rowKey,
  reveal,
}: {
  text: string;
  line: number;
  rowKey: string | undefined;
  reveal: (key: string) => void;
}) {
  let value: Json | undefined;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    value = undefined;
  }
  return (
    <section class="raw-pane" aria-label="line detail">
      <h3>
        Line {line}
        <CopyButton text={() => text} label="Copy line" />
        {rowKey ? (
          <button type="button" class="linkish" onClick={() => reveal(rowKey)}>
            Show in timeline
          </button>
        ) : null}
      </h3>
      {value === undefined ? <pre class="c-text err">{text}</pre> : <JsonTree value={value} open={2} />}
    </section>
  );
}
