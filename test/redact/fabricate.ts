/**
 * Fabricated secrets for the redaction tests: characters from a fixed generator, so every run sees the same values
 * and none is, or was ever, a real credential. Shapes follow the providers' public formats.
 */

export const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const HEX = '0123456789abcdef';
export const DIGITS = '0123456789';
export const B64URL = `${ALPHANUM}_-`;
export const B64 = `${ALPHANUM}+/`;

let seed = 20_261_201;

/** `n` characters of `alphabet`, different at every call and the same from run to run. */
export function chars(n: number, alphabet = ALPHANUM): string {
  let out = '';
  for (let i = 0; i < n; i += 1) {
    // A 31-bit LCG, using its high bits (the low ones of such generators cycle quickly).
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += alphabet[Math.floor((seed / 2147483648) * alphabet.length)];
  }
  return out;
}

export const hex = (n: number): string => chars(n, HEX);
export const digits = (n: number): string => chars(n, DIGITS).replace(/^0/, '7');
export const uuid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
/** Standard base64 of `n` characters that decodes to binary, never text (a key's body). */
export const b64 = (n: number): string => chars(n, B64);
