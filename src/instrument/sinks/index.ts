import { TapedeckError } from '../../base/errors.js';
import { defaultTraceDir } from '../../base/paths.js';
import type { RedactConfig } from '../../redact/types.js';
import type { Destination, EventSink, FilesDestination } from '../types.js';
import { CollectorSink } from './collector.js';
import { FilesSink } from './files.js';
import { OtlpSink } from './otlp.js';

/** What every sink may need from the recorder. */
export interface SinkContext {
  uploadTimeout: number;
  redaction: RedactConfig;
  report: (error: Error) => void;
}

const TYPES = ['collector', 'files', 'otlp', 'sink'] as const;

function need(value: unknown, what: string, where: string): void {
  if (typeof value !== 'string' || value === '') {
    throw new TapedeckError('usage', `instrument: ${where} needs ${what}`);
  }
}

/** One sink per destination; a destination with a missing field or an unknown type throws a usage error. */
export function createSinks(to: Destination | Destination[] | undefined, ctx: SinkContext): EventSink[] {
  // No destination named: trace files where `tapedeck record` puts its traces.
  const list = to === undefined ? [defaultDestination()] : Array.isArray(to) ? to : [to];
  if (list.length === 0) {
    throw new TapedeckError(
      'usage',
      `instrument: options.to names no destination; give one of ${TYPES.map((t) => `{ type: '${t}', … }`).join(', ')}`,
    );
  }
  return list.map((destination, i) => {
    const where = `to[${i}] (${JSON.stringify(destination?.type)})`;
    switch (destination?.type) {
      case 'collector':
        need(destination.url, 'a url (the collector, e.g. http://127.0.0.1:7420)', where);
        need(destination.token, 'a token (the collector write token)', where);
        return new CollectorSink(destination, ctx.uploadTimeout, ctx.redaction);
      case 'files':
        need(destination.dir, 'a dir (the folder for trace files)', where);
        return new FilesSink(destination, ctx.redaction, (message) => ctx.report(new Error(message)));
      case 'otlp':
        need(
          destination.url,
          'a url (the OTLP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces)',
          where,
        );
        return new OtlpSink(destination, ctx.uploadTimeout);
      case 'sink':
        if (typeof destination.sink?.write !== 'function') {
          throw new TapedeckError('usage', `instrument: ${where} needs a sink with a write(events) method`);
        }
        return destination.sink;
      default:
        throw new TapedeckError(
          'usage',
          `instrument: ${where} is not a known destination type; use one of ${TYPES.join(', ')}`,
        );
    }
  });
}

/** `{ type: 'files', dir: $TAPEDECK_DIR or ~/.tapedeck/traces }`. */
export function defaultDestination(env: NodeJS.ProcessEnv = process.env): FilesDestination {
  return { type: 'files', dir: defaultTraceDir(env) };
}
