import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { shownText } from './status-bar.js';

export interface FilterBarProps {
  params: Readonly<Record<string, string>>;
  set: (changes: Record<string, string | undefined>) => void;
  tools: readonly string[];
  methods: readonly string[];
  servers: readonly string[];
  /** The regular expression did not compile. */
  error: string | undefined;
  shown: number;
  total: number;
  noun: 'rows' | 'calls';
  /** `shown` is only what was found so far: the server is still counting. */
  counting?: boolean | undefined;
  /** The open traces hold HTTP envelope lines: offer the switch that shows them. */
  transport: boolean;
  /** Whether they show now (the `tl` parameter, else the traces' default). */
  transportShown: boolean;
  /** Actions on the rows shown (export), after the filters (folded with them on a phone). */
  children?: ComponentChildren;
}

/** Typing settles for this long before the rows are filtered (100k rows take a moment). */
const SETTLE_MS = 180;

/** A text box that edits one URL parameter, pushing its value once typing pauses. */
function Debounced({
  value,
  onChange,
  ...rest
}: { value: string; onChange: (value: string) => void } & Record<string, unknown>) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const pending = useRef(false);
  useEffect(() => {
    if (!pending.current) setText(value);
  }, [value]);
  return (
    <input
      {...rest}
      value={text}
      onInput={(e) => {
        const next = (e.currentTarget as HTMLInputElement).value;
        setText(next);
        pending.current = true;
        clearTimeout(timer.current);
        timer.current = setTimeout(() => {
          pending.current = false;
          onChange(next);
        }, SETTLE_MS);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          clearTimeout(timer.current);
          pending.current = false;
          onChange((e.currentTarget as HTMLInputElement).value);
        }
      }}
    />
  );
}

/** The filters besides the search, counted on the button that unfolds them on a narrow screen. */
const FILTERS = ['tool', 'method', 'dir', 'server', 'err'] as const;

/**
 * Search (text or regex over the message JSON), tool name, method, direction, server, errors only, and HTTP
 * transport lines. On a narrow screen everything but the search folds behind a "Filters" button.
 */
export function FilterBar(props: FilterBarProps) {
  const { params, set } = props;
  const [unfolded, setUnfolded] = useState(false);
  const active = params.q || FILTERS.some((k) => params[k]);
  const applied = FILTERS.filter((k) => params[k]).length;
  return (
    <form class={`filters${unfolded ? ' unfolded' : ''}`} onSubmit={(e) => e.preventDefault()}>
      <Debounced
        type="search"
        class={`q${props.error ? ' bad' : ''}`}
        placeholder={
          params.re ? 'Regular expression over arguments and results' : 'Search arguments and results'
        }
        aria-label="search"
        value={params.q ?? ''}
        onChange={(q: string) => set({ q })}
        title={props.error}
      />
      <label class="check" title="Treat the search as a regular expression">
        <input
          type="checkbox"
          checked={params.re === '1'}
          onChange={(e) => set({ re: (e.currentTarget as HTMLInputElement).checked ? '1' : undefined })}
        />
        .*
      </label>
      <button
        type="button"
        class="more-toggle"
        aria-expanded={unfolded}
        aria-controls="more-filters"
        onClick={() => setUnfolded(!unfolded)}
      >
        Filters{applied > 0 ? ` (${applied})` : ''} {unfolded ? '▴' : '▾'}
      </button>
      <div class="more" id="more-filters">
        <Debounced
          type="search"
          class="tool"
          list="tool-names"
          placeholder="Tool"
          aria-label="tool"
          value={params.tool ?? ''}
          onChange={(tool: string) => set({ tool })}
        />
        <datalist id="tool-names">
          {props.tools.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <select
          aria-label="method"
          value={params.method ?? ''}
          onChange={(e) => set({ method: e.currentTarget.value })}
        >
          <option value="">All methods</option>
          {props.methods.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <select
          aria-label="direction"
          value={params.dir ?? ''}
          onChange={(e) => set({ dir: e.currentTarget.value })}
        >
          <option value="">Both directions</option>
          <option value="in">client → server</option>
          <option value="out">server → client</option>
        </select>
        {props.servers.length > 1 ? (
          <select
            aria-label="server"
            value={params.server ?? ''}
            onChange={(e) => set({ server: e.currentTarget.value })}
          >
            <option value="">All servers</option>
            {props.servers.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        ) : null}
        <label class="check">
          <input
            type="checkbox"
            aria-label="errors only"
            checked={params.err === '1'}
            onChange={(e) => set({ err: (e.currentTarget as HTMLInputElement).checked ? '1' : undefined })}
          />
          Errors only
        </label>
        {props.transport ? (
          <label class="check" title="HTTP requests, responses and headers around the MCP messages">
            <input
              type="checkbox"
              aria-label="transport lines"
              checked={props.transportShown}
              onChange={(e) => set({ tl: (e.currentTarget as HTMLInputElement).checked ? '1' : '0' })}
            />
            Transport lines
          </label>
        ) : null}
        {active ? (
          <button
            type="button"
            class="clear"
            onClick={() =>
              set({
                q: undefined,
                tool: undefined,
                method: undefined,
                dir: undefined,
                server: undefined,
                err: undefined,
              })
            }
          >
            Clear
          </button>
        ) : null}
        {props.children}
      </div>
      <span
        class="count"
        data-shown={props.shown}
        data-total={props.total}
        data-counting={props.counting ? 'yes' : undefined}
      >
        {props.error ? <span class="err">{props.error}</span> : null}
        {shownText(props)}
      </span>
    </form>
  );
}
