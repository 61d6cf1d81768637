/**
 * Multi-line secrets in line streams. A server that prints a private key to stderr writes it a line at a time, and
 * each line becomes its own trace line: redacting lines one by one would hide the `BEGIN` line and store the body.
 * So the lines of one stream (stderr, or the non-JSON `text` lines of one direction) are redacted as a stream: a
 * line that opens a block (a PEM / OpenSSH / PGP private key whose END is not on the same line, or the first line of
 * a base64 dump of a DER private key or PKCS#12 file) hides every following line of the block up to its end.
 */

/** The first line of a base64 DER private key or PKCS#12 file (RSA PKCS#1, PKCS#8, PKCS#12, EC, Ed25519). */
export const DER_KEY_START =
  /^(?:MI[IJKL][A-Za-z0-9+/]{2}[AQgw]IBA(?:AKC|DAN|zCC)|MHcCAQEE|MC4CAQAwBQYDK2Vw)/;
const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY(?: BLOCK)?-----/;
const BASE64_LINE = /^[A-Za-z0-9+/]{1,1024}={0,2}$/;
/** What else a PEM or PGP block holds: base64 body, armor headers (`Proc-Type: …`, `Version: …`), blank lines. */
const PEM_BODY = /^(?:[A-Za-z0-9+/=]{0,1024}|[A-Za-z][A-Za-z0-9-]{0,31}: .{0,512})$/;

/** Lines a block may span at most: a 16k-bit RSA key in PEM is about 200; past this the block is taken as over. */
export const MAX_BLOCK_LINES = 2000;

interface OpenBlock {
  kind: 'pem' | 'der';
  rule: string;
  /** DER dumps: the width of a full line; a shorter line is the last one. */
  width: number;
  lines: number;
}

/** Rule ids of the two block kinds, as markers name them. */
export const BLOCK_RULE_IDS = { pem: 'private-key-pem', der: 'private-key-der' } as const;

/**
 * The open blocks of every stream of one trace. Feed it each text or stderr line in order: {@link StreamBlocks.inside}
 * says whether the line belongs to an open block (and is to be hidden whole), {@link StreamBlocks.after} notes a
 * line that opens one.
 *
 * @example
 * const blocks = new StreamBlocks();
 * blocks.after('stderr', '-----BEGIN OPENSSH PRIVATE KEY-----'); blocks.inside('stderr', 'b3BlbnNzaC1rZXktdjEAAAAA') // 'private-key-pem'
 */
export class StreamBlocks {
  private readonly open = new Map<string, OpenBlock>();

  /** The rule hiding `text` when it is a line of a block open in `stream` (closing it at its end), else undefined. */
  inside(stream: string, text: string): string | undefined {
    const block = this.open.get(stream);
    if (block === undefined) return undefined;
    block.lines += 1;
    const line = text.trim();
    if (block.kind === 'pem') {
      if (line.includes('-----END ')) {
        this.open.delete(stream);
        return block.rule;
      }
      if (PEM_BODY.test(line) && block.lines <= MAX_BLOCK_LINES) return block.rule;
    } else if (BASE64_LINE.test(line) && line.length <= block.width && block.lines <= MAX_BLOCK_LINES) {
      if (line.length < block.width || line.endsWith('=')) this.open.delete(stream);
      return block.rule;
    }
    // Not block text: the block was cut off (a key printed in part); this line is the stream's again.
    this.open.delete(stream);
    return undefined;
  }

  /**
   * Notes a line that opens a block in `stream`: a PEM BEGIN with no END after it, or the first full-width line of
   * a DER key dump. Returns the rule that hides such a line whole (DER), undefined otherwise (the value rules
   * already hide a PEM header line from BEGIN on).
   */
  after(stream: string, text: string): string | undefined {
    const begin = PEM_BEGIN.exec(text);
    if (begin !== null) {
      if (!text.includes('-----END ', begin.index + begin[0].length)) {
        this.open.set(stream, { kind: 'pem', rule: BLOCK_RULE_IDS.pem, width: 0, lines: 0 });
      }
      return undefined;
    }
    const line = text.trim();
    if (line.length >= 40 && DER_KEY_START.test(line) && BASE64_LINE.test(line)) {
      // A dump ends at its first short line; a key on one line (no line breaks) is whole already.
      if (line.length >= 60 && line.length <= 128 && !line.endsWith('=')) {
        this.open.set(stream, { kind: 'der', rule: BLOCK_RULE_IDS.der, width: line.length, lines: 0 });
      }
      return BLOCK_RULE_IDS.der;
    }
    return undefined;
  }
}
