import { formatLatency, formatOffset } from '../../base/units.js';
import { idTag, notificationLabel, requestLabel } from '../../trace/describe.js';
import {
  errorDetail,
  notificationDetail,
  requestDetail,
  responseDetail,
} from '../../trace/describe-detail.js';
import { certainDepth } from '../../trace/exchange.js';
import type { Exchange, MessageRef, PairEvent } from '../../trace/pairing.js';
import type { Direction, TraceLine } from '../../trace/types.js';
import { type Palette, padStart, palette, visibleWidth } from './color.js';
import { FaultMarks, faultSummary } from './fault-marks.js';
import { detailColumn, layoutRow, type Tone } from './timeline-row.js';
import { DEFAULT_WIDTH, fitLine, fitText } from './wrap.js';

/**
 * The `tapedeck show` timeline: one row per message, time offset from the start of the session, direction arrow,
 * what the message is, and a detail column, fitted to the terminal's width (timeline-row.ts). Server messages that
 * belong to a request are indented under it. A message only guessed to belong to one (nothing on the wire ties
 * it: the request was merely open when it came) is not indented under it but set beside it, marked
 * `maybe for #id`. Rendering is incremental (one event in, rows out) so `--follow` prints as lines arrive.
 */

export interface TimelineOptions {
  color: boolean;
  /** Terminal columns to fit rows into (default 80): details are cut to it, errors wrap. */
  width?: number | undefined;
}

const ARROW: Record<Direction, string> = { in: '→', out: '←' };
const TIME = 9;

/**
 * Turns pairing events into timeline rows, remembering the session start (the meta's `startedAt`, else the first
 * timestamp) and the trace's own server.
 *
 * @example const r = new TimelineRenderer({ color: false }); for (const ev of pairTrace(lines)) out.push(...r.render(ev));
 */
export class TimelineRenderer {
  private readonly c: Palette;
  private start: number | undefined;
  /** The trace's own server (meta.server); rows of other servers get tagged. */
  private server: string | undefined;
  private sawMeta = false;
  private unansweredHeader = false;
  /** The exchange the latest rows were about, to tell when a child belongs elsewhere. */
  private context: Exchange | undefined;
  private readonly width: number;
  private readonly column: number;
  /** Injected faults, marked on the rows of the calls they spoiled. */
  private readonly faults = new FaultMarks();

  constructor(options: TimelineOptions) {
    this.c = palette(options.color);
    this.width = options.width ?? DEFAULT_WIDTH;
    this.column = detailColumn(this.width);
  }

  /** The rows for one event (possibly none). */
  render(ev: PairEvent): string[] {
    switch (ev.kind) {
      case 'line':
        return this.renderLine(ev.line);
      case 'request': {
        const x = ev.exchange;
        const suffix = ` ${this.c.dim(idTag(x.id))}${this.owner(x.parent, x.guessed)}`;
        this.context = x;
        const depth = certainDepth(x.parent, x.guessed);
        return this.row(
          ev.ref,
          depth,
          requestLabel(x.request),
          this.c.bold,
          suffix,
          requestDetail(x.request),
        );
      }
      case 'response':
        this.context = ev.exchange;
        return this.responseRow(ev.exchange, ev.ref);
      case 'notification': {
        const owner = ev.via === 'requestId' ? '' : this.owner(ev.parent, ev.guessed);
        if (ev.parent) this.context = ev.parent;
        const depth = certainDepth(ev.parent, ev.guessed);
        const label = notificationLabel(ev.notification);
        return this.row(ev.ref, depth, label, this.c.cyan, owner, notificationDetail(ev.notification));
      }
      case 'orphan': {
        const { error, id } = ev.response;
        if (id === null && error !== undefined) {
          // JSON-RPC's answer to a request the peer could not read (a parse error): an error about no request.
          const code = error.code === undefined ? '' : ` ${this.c.dim(String(error.code))}`;
          const detail = `${error.message} (about a message it could not read)`;
          return this.row(ev.ref, 0, '✗ error', this.c.red, code, detail, this.c.red, true);
        }
        const suffix = ` ${this.c.dim(idTag(id ?? 'null'))}`;
        return this.row(
          ev.ref,
          0,
          'response',
          this.c.yellow,
          suffix,
          'answers no open request',
          this.c.yellow,
        );
      }
      case 'invalid':
        return this.row(ev.ref, 0, 'invalid message', this.c.red, '', ev.reason, this.c.red, true);
      case 'unanswered':
        return this.unansweredRow(ev.exchange);
    }
  }

  /**
   * ` for #id` when a message belongs to a request other than the one the rows above are about (the parent is not
   * the latest request or one of its ancestors), e.g. a subscription notification arriving during a tool call;
   * ` maybe for #id`, always, when the tie is only a guess.
   */
  private owner(parent: Exchange | undefined, guessed: boolean): string {
    if (!parent) return '';
    if (guessed) return ` ${this.c.yellow(`maybe for ${idTag(parent.id)}`)}`;
    for (let near = this.context; near; near = near.parent) if (near === parent) return '';
    return this.c.dim(` for ${idTag(parent.id)}`);
  }

  private time(t: string | undefined): string {
    const ms = t === undefined ? Number.NaN : Date.parse(t);
    if (Number.isNaN(ms)) return padStart('', TIME);
    this.start ??= ms;
    return this.c.dim(padStart(formatOffset(ms - this.start), TIME));
  }

  /**
   * `[server]` on rows of a multi-server trace: a line whose server differs from the trace's own (meta.server).
   * Connections are not tagged: on HTTP every POST is one, and the `http` rows already name them.
   */
  private scopeTag(line: TraceLine): string {
    const server = typeof line.server === 'string' ? line.server : undefined;
    if (server === undefined || server === this.server) return '';
    return `${this.c.magenta(`[${server}]`)} `;
  }

  private row(
    ref: MessageRef,
    depth: number,
    label: string,
    labelTone: Tone,
    suffix: string,
    detail: string,
    tone: Tone = this.c.dim,
    whole = false,
  ): string[] {
    const dir = ref.line.dir;
    const arrow = dir === 'in' ? this.c.green(ARROW.in) : this.c.blue(ARROW.out);
    const batch = ref.item === undefined ? '' : this.c.dim(`[batch ${ref.item + 1}] `);
    const prefix = `${this.time(ref.line.t)}  ${'  '.repeat(depth)}${arrow} ${batch}${this.scopeTag(ref.line)}`;
    const parts = { prefix, label, labelTone, suffix, detail, tone, whole };
    return layoutRow(parts, this.width, this.column);
  }

  private responseRow(x: Exchange, ref: MessageRef): string[] {
    const latency = x.latencyMs === undefined ? '' : ` ${formatLatency(x.latencyMs)}`;
    const c = this.c;
    const failed = x.outcome === 'error' || x.outcome === 'tool_error';
    // A failure's message is read whole; anything else is a preview.
    const detail = (failed ? errorDetail(x.response!) : undefined) ?? responseDetail(x.method, x.response!);
    const [mark, text, tone] =
      x.outcome === 'error'
        ? [c.red('✗'), `error ${detail}`, c.red]
        : x.outcome === 'tool_error'
          ? [c.red('✗'), `tool error: ${detail}`, c.red]
          : x.outcome === 'input_required'
            ? [c.yellow('…'), detail, c.yellow]
            : [c.green('✓'), detail, c.dim];
    const fault = this.faults.take(x);
    const injected = fault === undefined ? '' : ` ${c.magenta(`⚡ ${fault}`)}`;
    const suffix = ` ${c.dim(idTag(x.id))} ${mark}${latency}${injected}${this.owner(x.parent, x.guessed)}`;
    // An answer tapedeck gave itself (the upstream was out of reach) is not the server's: say so.
    const by = ref.line.producedBy === 'tapedeck' ? ' (from tapedeck, not the server)' : '';
    const depth = certainDepth(x.parent, x.guessed);
    return this.row(ref, depth, requestLabel(x.request), String, suffix, `${text}${by}`, tone, failed);
  }

  /** `head` and then as much of `text` (its leading spaces kept) as the row has room for, dim. */
  private tail(head: string, text: string): string {
    const lead = /^ */.exec(text)?.[0] ?? '';
    const room = this.width - visibleWidth(head) - lead.length;
    const shown = fitText(text.slice(lead.length), room);
    return shown === '' ? head : `${head}${this.c.dim(lead + shown)}`;
  }

  private unansweredRow(x: Exchange): string[] {
    const rows: string[] = [];
    if (!this.unansweredHeader) {
      this.unansweredHeader = true;
      rows.push(this.c.yellow('unanswered requests:'));
    }
    const where = x.requestRef.lineNo === undefined ? '' : ` (line ${x.requestRef.lineNo})`;
    const fault = this.faults.take(x);
    const injected = fault === undefined ? '' : ` (⚡ ${fault})`;
    const note = `${x.cancelled ? 'cancelled, never answered' : 'never answered'}${where}${injected}`;
    const suffix = ` ${this.c.yellow(idTag(x.id))}`;
    rows.push(...this.row(x.requestRef, 0, requestLabel(x.request), this.c.yellow, suffix, note));
    return rows;
  }

  private renderLine(line: TraceLine): string[] {
    const c = this.c;
    switch (line.type) {
      case 'meta': {
        const started = Date.parse(line.startedAt);
        if (this.sawMeta) return [c.dim(`── segment ${line.segment ?? '?'} ──`)];
        this.sawMeta = true;
        this.server = line.server;
        if (!Number.isNaN(started)) this.start ??= started;
        const parts = [
          line.label,
          line.transport,
          line.server,
          line.url,
          line.command?.join(' '),
          `started ${line.startedAt}`,
        ];
        const title = parts.filter((p) => p !== undefined && p !== '').join(' · ');
        return fitLine(title, this.width, 2).map((line) => c.bold(line));
      }
      case 'end': {
        const exit = line.exitCode === undefined || line.exitCode === null ? '' : ` · exit ${line.exitCode}`;
        const signal = line.signal ? ` · ${line.signal}` : '';
        const reason = line.reason ? ` · ${line.reason}` : '';
        const duration = ` · ${(line.durationMs / 1000).toFixed(3)}s`;
        return [this.tail(`${this.time(line.t)}  ${c.bold('■ end')}`, duration + exit + signal + reason)];
      }
      case 'stderr':
        return [this.tail(`${this.time(line.t)}  ${c.yellow('stderr')} `, line.text)];
      case 'text':
        return [this.tail(`${this.time(line.t)}  ${ARROW[line.dir]} ${c.yellow('text')} `, line.text)];
      case 'http': {
        const what = [line.method, line.url, line.status].filter((p) => p !== undefined).join(' ');
        return [this.tail(`${this.time(line.t)}  `, `${ARROW[line.dir]} http ${line.conn} ${what}`)];
      }
      case 'event': {
        if (line.name === 'fault') {
          this.faults.note(line);
          return [this.tail(`${this.time(line.t)}  ${c.magenta('⚡ fault')} `, faultSummary(line))];
        }
        if (line.name === 'session' && typeof line.sessionId === 'string') {
          return [this.tail(`${this.time(line.t)}  ${c.magenta('⚑ session')} `, sessionSummary(line))];
        }
        const { t, seq, type, name, ...rest } = line;
        void seq;
        void type;
        const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
        return [this.tail(`${this.time(t)}  ${c.magenta(`⚑ ${name}`)}`, extra)];
      }
      default:
        // Unknown line types are ignored, as the format asks of readers.
        return [];
    }
  }
}

/**
 * Renders a whole trace's events as one string (rows joined by newlines, trailing newline included).
 *
 * @example renderTimeline(pairTrace(lines), { color: false })
 */
/**
 * A `session` event as one row: the session id, its era (`stateless`, keyed by the recorder, in the 2026-07-28
 * revision that has no session id on the wire; `initialize` otherwise) and the client it belongs to.
 *
 * @example sessionSummary({ sessionId: 'a1', era: 'stateless', protocolVersion: '2026-07-28' }) // 'a1 · stateless 2026-07-28'
 */
export function sessionSummary(line: Record<string, unknown>): string {
  const parts = [String(line.sessionId)];
  if (typeof line.era === 'string') {
    const version = typeof line.protocolVersion === 'string' ? ` ${line.protocolVersion}` : '';
    parts.push(`${line.era}${version}`);
  }
  const client = line.client as { name?: unknown; version?: unknown } | undefined;
  if (client !== undefined && typeof client.name === 'string') {
    parts.push(
      typeof client.version === 'string' && client.version !== ''
        ? `${client.name} ${client.version}`
        : client.name,
    );
  }
  return parts.join(' · ');
}

export function renderTimeline(events: Iterable<PairEvent>, options: TimelineOptions): string {
  const renderer = new TimelineRenderer(options);
  const rows: string[] = [];
  for (const ev of events) rows.push(...renderer.render(ev));
  return rows.length === 0 ? '' : `${rows.join('\n')}\n`;
}
