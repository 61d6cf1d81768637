import { useMemo } from 'preact/hooks';
import type { Json } from 'tapedeck/trace';
import { displayName } from '../data/load.js';
import type { SourceModel } from '../data/source-model.js';
import { formatBytes } from '../data/summary.js';
import { CopyButton } from './copy.js';
import { JsonTree } from './json-tree.js';
import { keyStep, VirtualList } from './virtual-list.js';

export interface RawProps {
  source: SourceModel;
  version: number;
  file: string | undefined;
  line: number | undefined;
  show: (file: string, line: number | undefined) => void;
  /** Jump to the timeline row of a line, when it has one. */
  reveal: (key: string) => void;
}

/** Characters of a line shown in the list; the whole line is in the pane below. */
const SHOWN = 600;

/** The trace file as written: JSONL with line numbers, one file of a rotated trace at a time. */
export function Raw({ source, version, file, line, show, reveal }: RawProps) {
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
      </div>
      <VirtualList
        class="raw-list"
        label="raw lines"
        count={count}
        rowHeight={22}
        render={render}
        scrollToIndex={line === undefined ? undefined : line - 1}
        onKeyDown={onKeyDown}
      />
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
