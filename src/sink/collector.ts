import { decodeLine } from '../trace/decode.js';
import type { EndLine, EventLine, MetaLine, RecordLine } from '../trace/types.js';
import { CollectorPoster, type CollectorPosterOptions } from './collector-poster.js';
import { FileSink, type FileSinkOptions } from './file.js';
import { BaseSink, type BaseSinkOptions, type EndInfo } from './sink.js';

/**
 * Sinks that stream a recording to a collector's live trace (see collector-poster.ts for batching, retries and
 * the bounded queue). The recording never waits for the collector: a line is queued and the session goes on.
 */

export interface CollectorSinkOptions extends BaseSinkOptions, Omit<CollectorPosterOptions, 'droppedLine'> {}

/**
 * Streams a trace to a collector only.
 *
 * @example
 * const sink = new CollectorSink({ url: 'http://127.0.0.1:7420', token, label: 'everything' });
 * sink.start(meta); sink.append(body); await sink.close({ reason: 'producer_shutdown' });
 */
export class CollectorSink extends BaseSink {
  /** @internal the delivery queue, for its counts */
  readonly poster: CollectorPoster;

  constructor(options: CollectorSinkOptions) {
    super(options);
    this.poster = new CollectorPoster({
      ...options,
      droppedLine: (count) => this.event('dropped', { count, target: 'collector' }),
    });
  }

  protected writeMeta(_meta: MetaLine, text: string): void {
    this.poster.push(text, true);
  }

  protected writeRecord(_line: RecordLine, text: string): void {
    this.poster.push(text);
  }

  /** Drops are reported before the end line is made, so its counts include the `dropped` event. */
  override close(info: EndInfo): Promise<void> {
    this.poster.reportDrops();
    return super.close(info);
  }

  protected async writeEnd(_end: EndLine, text: string): Promise<void> {
    this.poster.push(text, true);
    await this.poster.close();
  }
}

export interface LiveFileSinkOptions extends FileSinkOptions {
  collector: Omit<CollectorPosterOptions, 'droppedLine'>;
}

/**
 * A FileSink that also streams every line it writes to a collector (`record --live`): one numbering, one
 * redaction, the same text in both places. Lines the collector could not take are reported by a `dropped` event
 * (`target: "collector"`) in the file and, once it catches up, in the live trace.
 *
 * @example
 * const sink = new LiveFileSink({ path, redact, collector: { url, token, traceId } });
 */
export class LiveFileSink extends FileSink {
  /** @internal the delivery queue, for its counts */
  readonly poster: CollectorPoster;

  constructor(options: LiveFileSinkOptions) {
    super(options);
    this.poster = new CollectorPoster({
      ...options.collector,
      droppedLine: (count) => {
        const text = this.event('dropped', { count, target: 'collector' });
        const decoded = decodeLine(text.trimEnd());
        if (decoded.kind === 'line') super.writeRecord(decoded.line as EventLine, text);
        return text;
      },
    });
  }

  protected override writeMeta(meta: MetaLine, text: string): void {
    super.writeMeta(meta, text);
    this.poster.push(text, true);
  }

  protected override writeRecord(line: RecordLine, text: string): void {
    super.writeRecord(line, text);
    this.poster.push(text);
  }

  /** Drops are reported before the end line is made, so its counts include the `dropped` event. */
  override close(info: EndInfo): Promise<void> {
    this.poster.reportDrops();
    return super.close(info);
  }

  protected override async writeEnd(end: EndLine, text: string): Promise<void> {
    this.poster.push(text, true);
    // The file first: it is the record that must be complete whatever the collector does.
    await super.writeEnd(end, text);
    await this.poster.close();
  }
}
