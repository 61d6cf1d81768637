/**
 * Secrets hidden in base64: a Kubernetes secret's `data`, a Docker `auth`, a service-account JSON passed as one
 * string. A run of base64 that decodes to text is redacted as text, and hidden whole when that text held a secret.
 * Binary payloads (images, PDFs, archives) are told apart by their first bytes or their unprintable content and left
 * alone, at the cost of decoding a few KB; runs longer than {@link BASE64_LIMITS.maxRun} are not decoded (scan counts
 * them as unchecked).
 */

export const BASE64_LIMITS = {
  /** Shorter runs decode to fewer than 18 bytes: too short to hold a credential worth a decode. */
  minRun: 24,
  /**
   * Longer runs are not decoded. A whole file sent as base64 (a `.env`, a kubeconfig, a service-account JSON, a
   * log) is decoded up to this size once its first few KB decode to text; binary data never is.
   */
  maxRun: 1 << 25,
  /** How much of the decoded text is checked for being text before the rest is decoded. */
  probe: 3072,
} as const;

/** Base64 of PNG, JPEG, GIF, WebP/RIFF, PDF, zip, gzip, MP4, WASM: data, never text. */
const BINARY = /^(?:iVBORw0KGgo|\/9j\/|R0lGOD|UklGR|JVBERi0|UEsDB|H4sI|AAAA[A-Za-z0-9+/]GZ0eXA|AGFzbQ)/;

function isBase64Char(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47
  );
}

/** Mostly printable ASCII (tabs and line breaks allowed), no NULs: decoded text rather than binary data. */
function looksLikeText(decoded: string): boolean {
  let printable = 0;
  for (let i = 0; i < decoded.length; i += 1) {
    const code = decoded.charCodeAt(i);
    if (code === 0) return false;
    if ((code >= 32 && code < 127) || code === 9 || code === 10 || code === 13) printable += 1;
  }
  return printable >= decoded.length * 0.95;
}

function decode(run: string): string | undefined {
  try {
    return atob(run);
  } catch {
    return undefined;
  }
}

/** `data:text/plain;base64,` and the like, before a long value's base64. */
const DATA_URL = /^data:[A-Za-z0-9.+/=;-]{0,128};base64,/;

/**
 * Where the base64 of a long value starts (0, or after its `data:…;base64,` prefix) when the value begins with base64
 * whose first few KB decode to text — a file sent as base64, to be decoded whole — else -1. Images and other binary
 * data cost one small decode.
 *
 * @example encodedTextAt(Buffer.from('API_KEY=…\n'.repeat(30000)).toString('base64')) // 0
 */
export function encodedTextAt(text: string): number {
  const from = DATA_URL.exec(text.slice(0, 160))?.[0].length ?? 0;
  const head = text.slice(from, from + BASE64_LIMITS.probe);
  if (!/^[A-Za-z0-9+/]{64,}$/.test(head) || BINARY.test(head)) return -1;
  const probe = decode(head.slice(0, head.length - (head.length % 4)));
  return probe !== undefined && looksLikeText(probe) ? from : -1;
}

/** A base64 run: where it is, and whether it was too long to decode. */
export interface Base64Run {
  start: number;
  end: number;
  /** Its decoded text, when it is text; undefined for binary data, invalid base64 and runs past the limit. */
  text: string | undefined;
  /** Left undecoded because it is longer than {@link BASE64_LIMITS.maxRun} and not a known binary format. */
  unchecked: boolean;
}

/**
 * Every run of standard base64 in `text` at least {@link BASE64_LIMITS.minRun} long (not part of a longer token:
 * `-` and `_` next to it make it something else), with its decoded text when it is text. Linear: each character is
 * looked at a bounded number of times, and only the first few KB of a binary run are decoded.
 *
 * @example base64Runs('data: dXNlcjpodW50ZXIyLXBhc3N3b3JkLTk5').map((r) => r.text) // ['user:hunter2-password-99']
 */
export function base64Runs(text: string, from = 0): Base64Run[] {
  const runs: Base64Run[] = [];
  let i = from;
  const n = text.length;
  while (i < n) {
    if (!isBase64Char(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    const start = i;
    while (i < n && isBase64Char(text.charCodeAt(i))) i += 1;
    let end = i;
    while (end < n && end - i < 2 && text.charCodeAt(end) === 61) end += 1;
    i = end;
    const before = text.charCodeAt(start - 1);
    const after = text.charCodeAt(end);
    if (end - start < BASE64_LIMITS.minRun || before === 45 || before === 95 || after === 45 || after === 95)
      continue;
    const run = text.slice(start, end);
    if (BINARY.test(run)) continue;
    if (run.length > BASE64_LIMITS.maxRun) {
      runs.push({ start, end, text: undefined, unchecked: true });
      continue;
    }
    // Decode a probe first (a multiple of 4 characters): most long runs are binary, and the probe says so for a
    // fraction of the cost.
    const long = run.length > BASE64_LIMITS.probe;
    const probe = decode(long ? run.slice(0, BASE64_LIMITS.probe) : run);
    if (probe === undefined || !looksLikeText(probe)) continue;
    const decoded = long ? decode(run) : probe;
    if (decoded === undefined || !looksLikeText(decoded)) continue;
    runs.push({ start, end, text: decoded, unchecked: false });
  }
  return runs;
}
