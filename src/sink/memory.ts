import type { EndLine, MetaLine, RecordLine, TraceLine } from '../trace/types.js';
import { BaseSink, type BaseSinkOptions } from './sink.js';

/**
 * Keeps a trace in memory: for tests and for in-process tools that inspect a session as it happens.
 *
 * @example const sink = new MemorySink(); sink.start(meta); …; await sink.close({ reason: 'producer_shutdown' }); sink.lines
 */
export class MemorySink extends BaseSink {
  readonly lines: TraceLine[] = [];
  readonly text: string[] = [];

  constructor(options: BaseSinkOptions = {}) {
    super(options);
  }

  protected writeMeta(meta: MetaLine, text: string): void {
    this.keep(meta, text);
  }

  protected writeRecord(line: RecordLine, text: string): void {
    this.keep(line, text);
  }

  protected async writeEnd(end: EndLine, text: string): Promise<void> {
    this.keep(end, text);
  }

  private keep(line: TraceLine, text: string): void {
    this.lines.push(line);
    this.text.push(text);
  }
}
