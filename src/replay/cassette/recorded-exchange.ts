import type { Exchange, ExchangeOutcome, MessageRef } from '../../trace/exchange.js';
import { classifyItem, isObject, type JsonObject, type RpcRequest } from '../../trace/jsonrpc.js';
import { defaultNormalizer, requestHash } from './normalize.js';
import type { CassetteExchange, MrtrRound, ServerMessage } from './types.js';

/**
 * The cassette exchange the script builder makes: its request and response held as the text of their trace lines
 * until read, and what reads them without keeping them.
 */

/** The script of every request the server said nothing in between about: one list, not one per request. */
export const NO_SCRIPT: readonly ServerMessage[] = Object.freeze([]);

/**
 * A cassette exchange as the builder makes it. Its request and response may be held as the text of their trace
 * lines and parsed when first read: a big cassette's messages are parsed as the session asks for them, and the
 * garbage collector never copies the ones it does not ask for. What matching needs of a request it never read —
 * its hash under the default normalization — is worked out while the request is in hand.
 */
export class RecordedExchange implements CassetteExchange {
  ordinal: number;
  method: string;
  respondedAtMs: number | undefined = undefined;
  responseOrder: number | undefined = undefined;
  outcome: ExchangeOutcome = 'open';
  cancelled = false;
  conn: string | undefined;
  order: number;
  lineNo: number | undefined;
  time: number | undefined;
  /** {@link requestHash} of the request as the default normalizer leaves it. */
  readonly defaultHash: number;
  // Every field is kept for each exchange of a cassette, so few: a big one holds millions.
  /** The request as pairing made it, or the text of its line until it is read. */
  #request: RpcRequest | string;
  /** The request's message (the stand-in while the request is its line's text). */
  #message: JsonObject;
  /** The response, or the text of its line until it is read. */
  #response: JsonObject | string | undefined = undefined;
  /** What few exchanges have: a script of server messages, a multi-round-trip round. */
  #rare: { script: readonly ServerMessage[]; mrtr: MrtrRound | undefined } | undefined = undefined;

  constructor(ordinal: number, paired: Exchange, message: JsonObject, order: number, ref: MessageRef) {
    this.ordinal = ordinal;
    this.method = paired.method;
    this.#request = paired.request;
    this.#message = message;
    this.conn = paired.conn;
    this.order = order;
    this.lineNo = ref.lineNo;
    this.time = ref.time;
    this.defaultHash = requestHash(defaultNormalizer.normalize(paired.method, paired.request.params));
  }

  get script(): readonly ServerMessage[] {
    return this.#rare === undefined ? NO_SCRIPT : this.#rare.script;
  }

  set script(script: readonly ServerMessage[]) {
    if (this.#rare !== undefined) this.#rare.script = script;
    else if (script !== NO_SCRIPT) this.#rare = { script, mrtr: undefined };
  }

  get mrtr(): MrtrRound | undefined {
    return this.#rare?.mrtr;
  }

  set mrtr(mrtr: MrtrRound | undefined) {
    if (this.#rare !== undefined) this.#rare.mrtr = mrtr;
    else if (mrtr !== undefined) this.#rare = { script: NO_SCRIPT, mrtr };
  }

  get request(): RpcRequest {
    return this.readRequest();
  }

  set request(request: RpcRequest) {
    this.readRequest();
    this.#request = request;
  }

  get message(): JsonObject {
    this.readRequest();
    return this.#message;
  }

  set message(message: JsonObject) {
    this.readRequest();
    this.#message = message;
  }

  get response(): JsonObject | undefined {
    if (typeof this.#response === 'string') this.#response = messageOfLine(this.#response);
    return this.#response;
  }

  set response(response: JsonObject | undefined) {
    this.#response = response;
  }

  /** The request, parsed from its line without keeping it when it was not read before (see {@link recordedRequest}). */
  peekRequest(): { request: RpcRequest; kept: boolean } {
    if (typeof this.#request !== 'string') return { request: this.#request, kept: true };
    return { request: requestOfLine(this.#request).request, kept: false };
  }

  /** The text of a response line not read yet (see {@link responseToSend}), else undefined. */
  unreadResponse(): string | undefined {
    return typeof this.#response === 'string' ? this.#response : undefined;
  }

  /**
   * Holds the request as the JSON text of its trace line (one message, not a batch), read again when asked for:
   * the objects parsed when the cassette was built are let go.
   */
  requestLine(text: string): void {
    this.#request = text;
    this.#message = UNREAD_MESSAGE;
  }

  /** Holds the response as the JSON text of its trace line (one message, not a batch). */
  responseLine(text: string): void {
    this.#response = text;
  }

  private readRequest(): RpcRequest {
    if (typeof this.#request !== 'string') return this.#request;
    const { request, message } = requestOfLine(this.#request);
    this.#request = request;
    this.#message = message;
    return request;
  }
}

/** The stand-in message while a request is held as its line's text (never handed out). */
const UNREAD_MESSAGE: JsonObject = Object.freeze({});

/**
 * A request line's message and request as pairing made them when the cassette was built: the line held a request
 * then, so it parses to one again.
 */
function requestOfLine(text: string): { request: RpcRequest; message: JsonObject } {
  const message = messageOfLine(text);
  const item = classifyItem(message);
  if (item.kind !== 'request') throw new Error(`recorded request line is not a request: ${item.kind}`);
  return { request: item, message };
}

/**
 * An exchange's recorded request, for a look that need not keep it: one not read before is parsed from its line's
 * text and not kept (`kept` false: a look at every request of a big cassette keeps none of them); otherwise
 * `exchange.request`.
 *
 * @example recordedRequest(exchange).request.params?._meta
 */
export function recordedRequest(exchange: CassetteExchange): { request: RpcRequest; kept: boolean } {
  if (exchange instanceof RecordedExchange) return exchange.peekRequest();
  return { request: exchange.request, kept: true };
}

/**
 * {@link requestHash} of an exchange's request under the default normalization when the builder worked it out
 * (every exchange buildCassette makes), else undefined.
 */
export function defaultRequestHash(exchange: CassetteExchange): number | undefined {
  return exchange instanceof RecordedExchange ? exchange.defaultHash : undefined;
}

/**
 * An exchange's response for sending once, as replay does: one not read before is parsed from its line's text and
 * not kept (`owned`: nothing else holds any part of it, so it needs no copy on its way out, and — living only while
 * it is sent — costs the garbage collector nothing, where one kept would be copied and promoted). Otherwise the
 * response as `exchange.response` gives it.
 *
 * @example const { response, owned } = responseToSend(exchange);
 */
export function responseToSend(exchange: CassetteExchange): {
  response: JsonObject | undefined;
  owned: boolean;
} {
  const text = exchange instanceof RecordedExchange ? exchange.unreadResponse() : undefined;
  if (text !== undefined) return { response: messageOfLine(text), owned: true };
  return { response: exchange.response, owned: false };
}

/**
 * The message of a trace line's text, as rawItem takes it from the parsed line. The line was parsed when the
 * cassette was built, so it is valid JSON. A message line as tapedeck writes it ends with its `raw` member
 * (`{"t":…,"seq":…,"dir":…,"raw":{…}}`): when nothing before `"raw":` opens an object or array, that is the line's
 * own `raw` key (the text `"raw":` cannot occur inside a JSON string), and the text after it, less the closing
 * brace, is the message alone — parsed without the envelope. If `raw` is not the last member (or appears twice),
 * that text is not one JSON value and the whole line is parsed instead.
 */
function messageOfLine(text: string): JsonObject {
  const at = text.indexOf('"raw":');
  if (at > 0 && text.charCodeAt(text.length - 1) === CLOSE_BRACE && !opensBefore(text, at)) {
    try {
      const raw = JSON.parse(text.slice(at + RAW_KEY_LENGTH, -1)) as unknown;
      return isObject(raw) ? raw : {};
    } catch {
      // Not the line's last member: the whole line below.
    }
  }
  const line = JSON.parse(text) as { raw?: unknown };
  return isObject(line.raw) ? line.raw : {};
}

const CLOSE_BRACE = 0x7d;
const RAW_KEY_LENGTH = '"raw":'.length;

/** Whether an object or array opens in `text` between its first character and `end`. */
function opensBefore(text: string, end: number): boolean {
  const brace = text.indexOf('{', 1);
  if (brace !== -1 && brace < end) return true;
  const bracket = text.indexOf('[');
  return bracket !== -1 && bracket < end;
}
