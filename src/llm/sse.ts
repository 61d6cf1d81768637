/** Server-sent events as an LLM proxy sees them: raw event texts cut at blank lines, then read. Pure. */

/** One event's fields: the `event:` name (if any) and its `data:` lines joined by newlines. */
export interface SseFields {
  event?: string;
  data: string;
}

/**
 * Cuts a stream of text into whole events, each with its terminating blank line, keeping the bytes as they were
 * (CRLF stays CRLF). Text after the last blank line waits for more.
 *
 * @example const cut = new SseCutter(); cut.push('data: 1\n\nda') // ['data: 1\n\n']; cut.rest() // 'da'
 */
export class SseCutter {
  private pending = '';

  push(text: string): string[] {
    this.pending += text;
    const out: string[] = [];
    for (;;) {
      const end = eventEnd(this.pending);
      if (end < 0) break;
      out.push(this.pending.slice(0, end));
      this.pending = this.pending.slice(end);
    }
    return out;
  }

  /** What is left once the stream ended (an unterminated last event), or ''. */
  rest(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }
}

/** The index just past the first blank line (`\n\n`, `\r\n\r\n` or `\r\r`), or -1. */
function eventEnd(text: string): number {
  const ends = [text.indexOf('\n\n'), text.indexOf('\r\n\r\n'), text.indexOf('\r\r')];
  const widths = [2, 4, 2];
  let best = -1;
  for (let i = 0; i < ends.length; i += 1) {
    const at = ends[i]!;
    if (at >= 0 && (best < 0 || at + widths[i]! < best)) best = at + widths[i]!;
  }
  return best;
}

/**
 * Reads one event's text: its name and data (comments and other fields ignored).
 *
 * @example sseFields('event: ping\ndata: {"type":"ping"}\n\n') // { event: 'ping', data: '{"type":"ping"}' }
 */
export function sseFields(text: string): SseFields {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
  }
  return event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') };
}

/** An event's data parsed as JSON, or undefined (`[DONE]`, empty, not JSON). */
export function sseJson(text: string): Record<string, unknown> | undefined {
  const { data } = sseFields(text);
  if (data === '' || data === '[DONE]') return undefined;
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
