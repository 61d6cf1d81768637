import type {
  EventLine,
  HttpLine,
  MessageLine,
  MetaLine,
  StderrLine,
  TextLine,
  TraceLine,
} from '../trace/types.js';
import { REDACTION_ERROR_MARKER } from './marker.js';

/**
 * What a line becomes when redacting it failed: its envelope, with the payload replaced by a marker.
 *
 * @example failedLine({ t, seq: 3, dir: 'in', raw: { … } }) // { t, seq: 3, dir: 'in', raw: '[REDACTED:redaction_error]' }
 */
export function failedLine<L extends TraceLine>(line: L): L {
  const marker = REDACTION_ERROR_MARKER;
  switch (line.type) {
    case undefined: {
      const { conn: _conn, ...rest } = line as MessageLine;
      return { ...rest, raw: marker } as L;
    }
    case 'text':
    case 'stderr': {
      const { b64: _bytes, ...rest } = line as TextLine | StderrLine;
      return { ...rest, text: marker, redacted: true } as unknown as L;
    }
    case 'meta': {
      const meta = line as MetaLine;
      return {
        ...meta,
        label: marker,
        ...(meta.command === undefined ? {} : { command: [marker] }),
        ...(meta.url === undefined ? {} : { url: marker }),
        ...(meta.server === undefined ? {} : { server: marker }),
      } as L;
    }
    case 'http': {
      const { url, ...rest } = line as HttpLine;
      return {
        ...rest,
        conn: marker,
        headers: {},
        ...(url === undefined ? {} : { url: marker }),
        redacted: true,
      } as unknown as L;
    }
    case 'end':
      return line;
    default: {
      const { t, seq, type, name } = line as EventLine;
      return { t, ...(seq === undefined ? {} : { seq }), type, name, redacted: marker } as unknown as L;
    }
  }
}
