import type { CompiledRules } from './compile.js';
import { credentialLike } from './pairs.js';
import { secretSpans } from './values.js';

/**
 * Secrets cut in two by the way a stream was read. A server's stderr line that has not ended is recorded after a
 * while up to its last blank, and the rest waits — up to ten seconds, and no longer than 64 KiB — so a token
 * written in two pieces, slowly, or with another writer's line landing between its halves, reaches the trace as
 * pieces on separate lines, none of which looks like a token: `Authorization: Bearer ghp_0123` (recorded as
 * `partial`), `worker 2 ready`, `456789abcdef…`.
 *
 * So after a line that was recorded before it ended, the stream's next lines are read joined to it: when the
 * value rules find a secret that starts in the earlier line and runs into a later line's first word, that word is
 * hidden too. A line between them that does not read as the rest of a credential (`worker 2 ready`: a word without
 * digits or inner capitals) is passed over, and the join stays open for a few lines; so does a join whose hidden
 * part ran to the end of its line, as the secret may go on.
 */

/** How many lines after a partial one may still hold its secret's rest. */
const LINES_OPEN = 3;
/** How much of the earlier lines is kept to join with: a token and its name fit, a whole line need not. */
const TAIL = 512;
/** How much of a line's first word is joined. */
const MAX_HEAD = 4096;

interface Open {
  tail: string;
  left: number;
}

/** A line's first word: its characters up to the first blank. */
function firstWord(text: string): string {
  let end = 0;
  while (end < text.length && end < MAX_HEAD) {
    const code = text.charCodeAt(end);
    if (code === 32 || code === 9 || code === 10 || code === 13) break;
    end += 1;
  }
  return text.slice(0, end);
}

/** Reads like the rest of a credential: long, or with a digit, a symbol or an inner capital. */
function continues(part: string): boolean {
  return part.length >= 16 || credentialLike(part, 0, part.length);
}

/** What hides the start of a line: how many characters, and under which rule. */
export interface SeamHit {
  length: number;
  rule: string;
}

/**
 * The lines of every stream of one trace that follow a partial line. Feed it each text or stderr line in order.
 *
 * @example
 * const seams = new LineSeams();
 * seams.line('stderr', 'Authorization: Bearer ghp_0123', true, compiled) // undefined: nothing before it
 * seams.line('stderr', '456789abcdefghijABCDEFGHIJ012345', false, compiled) // { length: 32, rule: 'authorization-header' }
 */
export class LineSeams {
  private readonly open = new Map<string, Open>();

  /**
   * Notes `text`, the next line of `stream` (`partial`: recorded before it ended), and says how much of its start
   * to hide, and under which rule, when it begins with the rest of a secret from the partial line(s) before it.
   */
  line(stream: string, text: string, partial: boolean, compiled: CompiledRules): SeamHit | undefined {
    const open = this.open.get(stream);
    if (open === undefined && !partial) return undefined;
    const hit = open === undefined ? undefined : this.rest(open, text, compiled);
    // Hidden to the end of the line: the secret may go on in the next one, joined to what came before.
    const whole = hit !== undefined && hit.length === text.length;
    if (whole || partial) {
      const tail = (whole ? open!.tail + text : text).slice(-TAIL);
      this.open.set(stream, { tail, left: LINES_OPEN });
    } else if (hit !== undefined || open === undefined || --open.left <= 0) this.open.delete(stream);
    return hit;
  }

  /** The start of `text` that, joined to the open tail, a rule hides as one secret, when it reads as a credential's. */
  private rest(open: Open, text: string, compiled: CompiledRules): SeamHit | undefined {
    const word = firstWord(text);
    if (word === '') return undefined;
    const seam = open.tail.length;
    const span = secretSpans(open.tail + word, compiled).find((s) => s.start <= seam && s.end > seam);
    if (span === undefined) return undefined;
    const length = span.end - seam;
    return continues(word.slice(0, length)) ? { length, rule: span.rule } : undefined;
  }
}
