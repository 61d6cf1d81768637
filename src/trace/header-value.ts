/**
 * Header values of the 2026-07-28 HTTP transport: a value that is not plain ASCII travels as `=?base64?…?=`
 * (UTF-8 bytes, canonical base64). Both the replay server and `lint` read routing headers through this.
 */

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A header value with its `=?base64?…?=` sentinel decoded (UTF-8); a value without one as it is; undefined for a
 * broken sentinel (not canonical base64, or not UTF-8).
 *
 * @example decodeHeaderValue('=?base64?w6lsw6h2ZQ==?=') // → 'élève'
 */
export function decodeHeaderValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = SENTINEL.exec(value);
  if (match === null) return value;
  const b64 = match[1] ?? '';
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}
