import { timestamp } from '../trace/encode.js';
import type { Json, RecordBody } from '../trace/types.js';
import type { HttpEnvelope, SentMessage, UpstreamEvent, UpstreamMessage } from './types.js';

/** Where capture lines go: a sink's `append` fits (`rawText` is the exact JSON text of a message line). */
export type CaptureEmit = (body: RecordBody, rawText?: string) => void;

/**
 * Turns what an upstream client reports into trace lines: messages sent as `in` lines and messages received as
 * `out` lines (with the session as `conn`, the HTTP stream and the SSE event id), request and answer heads as
 * `http` lines (a redacting sink hides credential headers), and what the client noticed as `event` lines.
 *
 * @example const capture = upstreamCapture((body, text) => sink.append(body, text));
 * const upstream = createUpstream({ url, onMessage: (m) => { capture.received(m); write(m.text); }, onSent: capture.sent, onEnvelope: capture.envelope, onEvent: capture.event });
 */
export function upstreamCapture(emit: CaptureEmit) {
  return {
    sent(message: SentMessage): void {
      const line: Record<string, Json | undefined> = {
        t: timestamp(message.atMs),
        dir: 'in',
        raw: message.raw,
        conn: message.conn,
        stream: message.stream,
      };
      emit(defined(line) as RecordBody, message.text);
    },
    received(message: UpstreamMessage): void {
      const line: Record<string, Json | undefined> = {
        t: timestamp(message.atMs),
        dir: 'out',
        raw: message.raw,
        conn: message.conn,
        stream: message.stream,
        eventId: message.eventId,
      };
      emit(defined(line) as RecordBody, message.text);
    },
    envelope(envelope: HttpEnvelope): void {
      const { atMs, conn, ...rest } = envelope;
      emit(defined({ t: timestamp(atMs), type: 'http', conn: conn ?? '', ...rest }) as RecordBody);
    },
    event(event: UpstreamEvent): void {
      const { kind, ...fields } = event;
      emit(
        defined({ t: timestamp(), type: 'event', name: kind.replace(/-/g, '_'), ...fields }) as RecordBody,
      );
    },
  };
}

function defined<T extends Record<string, unknown>>(line: T): T {
  for (const key of Object.keys(line)) if (line[key] === undefined) delete line[key];
  return line;
}
