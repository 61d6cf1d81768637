import { clip, idTag, notificationLabel, requestLabel } from '../../trace/describe.js';
import { notificationDetail, requestDetail, responseDetail } from '../../trace/describe-detail.js';
import type { Exchange, MessageRef, PairEvent } from '../../trace/pairing.js';
import type { Direction, TraceLine } from '../../trace/types.js';
import { formatLatency, formatOffset } from '../../units.js';
import { type Palette, padEnd, padStart, palette, visibleWidth } from './color.js';
import { FaultMarks, faultSummary } from './fault-marks.js';

/**
 * The `tapedeck show` timeline: one row per message, time offset from the start of the session, direction arrow,
 * what the message is, and a short detail column. Server messages that belong to a request are indented under it.
 * Rendering is incremental (one event in, rows out) so `--follow` prints as lines arrive.
 */

export interface TimelineOptions {
  color: boolean;
  /** Terminal width to fit rows into; undefined (pipes, files) clips details to a fixed length instead. */
  width?: number | undefined;
}

const ARROW: Record<Direction, string> = { in: '→', out: '←' };
/** Width of the headline column before the detail column starts. */
const HEAD = 50;
const TIME = 9;
/** Detail length when the width is unknown: keeps rows under ~125 columns, paste-friendly. */
const DETAIL = 64;

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
  private readonly width: number | undefined;
  /** Injected faults, marked on the rows of the calls they spoiled. */
  private readonly faults = new FaultMarks();

  constructor(options: TimelineOptions) {
    this.c = palette(options.color);
    this.width = options.width;
  }

  /** The rows for one event (possibly none). */
  render(ev: PairEvent): string[] {
    switch (ev.kind) {
      case 'line':
        return this.renderLine(ev.line);
      case 'request': {
        const x = ev.exchange;
        const label = `${this.c.bold(requestLabel(x.request))} ${this.c.dim(idTag(x.id))}${this.owner(x.parent)}`;
        this.context = x;
        return [this.row(ev.ref, x.depth, label, requestDetail(x.request))];
      }
      case 'response':
        this.context = ev.exchange;
        return [this.responseRow(ev.exchange, ev.ref)];
      case 'notification': {
        const owner = ev.via === 'requestId' ? '' : this.owner(ev.parent);
        if (ev.parent) this.context = ev.parent;
        const label = `${this.c.cyan(notificationLabel(ev.notification))}${owner}`;
        return [this.row(ev.ref, ev.depth, label, notificationDetail(ev.notification))];
      }
      case 'orphan': {
        const { error, id } = ev.response;
        if (id === null && error !== undefined) {
          // JSON-RPC's answer to a request the peer could not read (a parse error): an error about no request.
          const code = error.code === undefined ? '' : ` ${error.code}`;
          const head = `${this.c.red('✗ error')}${this.c.dim(code)}`;
          return [
            this.row(ev.ref, 0, head, `${error.message} (about a message it could not read)`, this.c.red),
          ];
        }
        const head = `${this.c.yellow('response')} ${this.c.dim(idTag(id ?? 'null'))}`;
        return [this.row(ev.ref, 0, head, 'answers no open request', this.c.yellow)];
      }
      case 'invalid':
        return [this.row(ev.ref, 0, this.c.red('invalid message'), ev.reason, this.c.red)];
      case 'unanswered':
        return this.unansweredRow(ev.exchange);
    }
  }

  /**
   * ` for #id` when a message belongs to a request other than the one the rows above are about (the parent is not
   * the latest request or one of its ancestors), e.g. a subscription notification arriving during a tool call.
   */
  private owner(parent: Exchange | undefined): string {
    if (!parent) return '';
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
    head: string,
    detail: string,
    tone: (text: string) => string = this.c.dim,
  ): string {
    const dir = ref.line.dir;
    const arrow = dir === 'in' ? this.c.green(ARROW.in) : this.c.blue(ARROW.out);
    const batch = ref.item === undefined ? '' : this.c.dim(`[batch ${ref.item + 1}] `);
    const left = `${this.time(ref.line.t)}  ${'  '.repeat(depth)}${arrow} ${batch}${this.scopeTag(ref.line)}${head}`;
    if (detail === '') return left;
    const padded = padEnd(left, TIME + 2 + HEAD);
    // On a terminal the detail is cut to the window; in a pipe it keeps its own (already clipped) length.
    const room = this.width === undefined ? DETAIL : this.width - visibleWidth(padded) - 2;
    // A sliver of detail says nothing; a row already at the edge goes without.
    if (room < 8) return left;
    return `${padded}  ${tone(clip(detail, room))}`;
  }

  private responseRow(x: Exchange, ref: MessageRef): string {
    const latency = x.latencyMs === undefined ? '' : ` ${formatLatency(x.latencyMs)}`;
    const c = this.c;
    const detail = responseDetail(x.method, x.response!);
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
    const head = `${requestLabel(x.request)} ${c.dim(idTag(x.id))} ${mark}${latency}${injected}`;
    // An answer tapedeck gave itself (the upstream was out of reach) is not the server's: say so.
    const by = ref.line.producedBy === 'tapedeck' ? ' (from tapedeck, not the server)' : '';
    return this.row(ref, x.depth, head, `${text}${by}`, tone);
  }

  private unansweredRow(x: Exchange): string[] {
    const rows: string[] = [];
    if (!this.unansweredHeader) {
      this.unansweredHeader = true;
      rows.push(this.c.yellow('unanswered requests:'));
    }
    const head = `${this.scopeTag(x.requestRef.line)}${requestLabel(x.request)} ${idTag(x.id)}`;
    const where = x.requestRef.lineNo === undefined ? '' : ` (line ${x.requestRef.lineNo})`;
    const fault = this.faults.take(x);
    const injected = fault === undefined ? '' : ` (⚡ ${fault})`;
    const note = `${x.cancelled ? 'cancelled, never answered' : 'never answered'}${where}${injected}`;
    rows.push(this.row(x.requestRef, 0, this.c.yellow(head), note));
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
        return [c.bold(parts.filter((p) => p !== undefined && p !== '').join(' · '))];
      }
      case 'end': {
        const exit = line.exitCode === undefined || line.exitCode === null ? '' : ` · exit ${line.exitCode}`;
        const signal = line.signal ? ` · ${line.signal}` : '';
        const reason = line.reason ? ` · ${line.reason}` : '';
        const duration = ` · ${(line.durationMs / 1000).toFixed(3)}s`;
        return [`${this.time(line.t)}  ${c.bold('■ end')}${c.dim(duration + exit + signal + reason)}`];
      }
      case 'stderr':
        return [`${this.time(line.t)}  ${c.yellow('stderr')} ${c.dim(clip(line.text, 120))}`];
      case 'text':
        return [
          `${this.time(line.t)}  ${ARROW[line.dir]} ${c.yellow('text')} ${c.dim(clip(line.text, 120))}`,
        ];
      case 'http': {
        const what = [line.method, line.url, line.status].filter((p) => p !== undefined).join(' ');
        return [`${this.time(line.t)}  ${c.dim(`${ARROW[line.dir]} http ${line.conn} ${what}`)}`];
      }
      case 'event': {
        if (line.name === 'fault') {
          this.faults.note(line);
          return [`${this.time(line.t)}  ${c.magenta('⚡ fault')} ${c.dim(faultSummary(line))}`];
        }
        const { t, seq, type, name, ...rest } = line;
        void seq;
        void type;
        const extra = Object.keys(rest).length > 0 ? ` ${clip(JSON.stringify(rest), 100)}` : '';
        return [`${this.time(t)}  ${c.magenta(`⚑ ${name}`)}${c.dim(extra)}`];
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
export function renderTimeline(events: Iterable<PairEvent>, options: TimelineOptions): string {
  const renderer = new TimelineRenderer(options);
  const rows: string[] = [];
  for (const ev of events) rows.push(...renderer.render(ev));
  return rows.length === 0 ? '' : `${rows.join('\n')}\n`;
}
