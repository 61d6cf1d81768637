import { isObject, type JsonObject, type RpcRequest } from '../../trace/jsonrpc.js';
import { recordedRequest } from '../cassette/recorded-exchange.js';
import type { CassetteExchange } from '../cassette/types.js';

/**
 * Replay takes part in the handshake as a live server would. A recording holds one client's terms: the protocol
 * version it asked for and the capabilities it declared. A later client may ask for another version (an older SDK)
 * or declare less (no roots), and a live server adapts to that client: it answers `initialize` with the client's
 * version when it speaks it, and never asks a client what that client did not say it can answer. The recorded
 * answers are kept otherwise.
 */

/** The protocol versions of the `initialize` era, oldest first. The 2026-07-28 era has no handshake. */
export const INITIALIZE_ERA = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * The version a server of the recorded one's era answers a client asking for `asked`. It is `asked` when that is a
 * version of the initialize era the recorded server speaks; otherwise the recorded answer (the server's own latest,
 * which the client then accepts or refuses). A server that answered an older version than its recorded client
 * asked for speaks nothing newer than that; one that answered what it was asked may speak the whole era.
 *
 * @example negotiatedVersion({ answered: '2025-11-25', asked: '2025-11-25' }, '2024-11-05') // → '2024-11-05'
 * @example negotiatedVersion({ answered: '2025-03-26', asked: '2025-11-25' }, '2025-06-18') // → '2025-03-26'
 */
export function negotiatedVersion(
  recorded: { answered: string; asked: string | undefined },
  asked: string | undefined,
): string {
  if (asked === undefined || !(INITIALIZE_ERA as readonly string[]).includes(asked)) return recorded.answered;
  // A server that negotiated its recorded client down showed its latest version; nothing newer is spoken.
  const negotiatedDown = recorded.asked !== undefined && recorded.answered < recorded.asked;
  return negotiatedDown && asked > recorded.answered ? recorded.answered : asked;
}

/**
 * The client capability a server→client request needs (`roots`, `sampling`, `sampling.tools`, `elicitation`,
 * `elicitation.form`, `elicitation.url`), or undefined when it needs none. The same checks an SDK server makes
 * before it asks.
 *
 * @example requiredCapability({ jsonrpc: '2.0', id: 0, method: 'roots/list' }) // → 'roots'
 */
export function requiredCapability(message: JsonObject): string | undefined {
  const params = isObject(message.params) ? message.params : {};
  switch (message.method) {
    case 'roots/list':
      return 'roots';
    case 'sampling/createMessage':
      return params.tools !== undefined || params.toolChoice !== undefined ? 'sampling.tools' : 'sampling';
    case 'elicitation/create':
      return params.mode === 'url' ? 'elicitation.url' : 'elicitation.form';
    default:
      return undefined;
  }
}

/**
 * Whether `capabilities` (what a client declared in `initialize`) include `capability`. An empty `elicitation`
 * object means form mode, as clients older than url mode declare it.
 *
 * @example declares({ elicitation: {} }, 'elicitation.form') // → true
 */
export function declares(capabilities: JsonObject, capability: string): boolean {
  const [area, mode] = capability.split('.') as [string, string | undefined];
  const declared = capabilities[area];
  if (!isObject(declared)) return false;
  if (mode === undefined) return true;
  if (area === 'elicitation' && mode === 'form' && Object.keys(declared).length === 0) return true;
  return isObject(declared[mode]);
}

/** A protocol version a live client asked for that is not the recorded one. */
export interface VersionNote {
  /** `initialize`: the handshake's answer; `request`: a 2026-era request's `_meta` version. */
  via: 'initialize' | 'request';
  /** What the recording holds: the recorded answer to `initialize`, or the version recorded on the request. */
  recorded: string;
  /** What the live client asked for. */
  asked: string;
  /** The version replay answered with (the recorded one for 2026-era requests: nothing is rewritten there). */
  answered: string;
}

/**
 * What one live client said of itself: its version and capabilities. A client that sent no `initialize` (a 2026-era client, or one whose handshake the cassette does not hold) is
 * asked everything the recording asked, as before.
 */
export class ClientTerms {
  private capabilities: JsonObject | undefined;
  private asked: string | undefined;

  /** Takes in a live request: `initialize` sets the client's terms. */
  hear(request: RpcRequest): void {
    if (request.method !== 'initialize') return;
    const params = request.params ?? {};
    this.capabilities = isObject(params.capabilities) ? params.capabilities : {};
    this.asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
  }

  /** The capability a recorded server→client request needs and this client did not declare, if any. */
  missing(message: JsonObject): string | undefined {
    const capability = requiredCapability(message);
    if (capability === undefined || this.capabilities === undefined) return undefined;
    return declares(this.capabilities, capability) ? undefined : capability;
  }

  /** The recorded `initialize` response with the version this client gets, and a note when it asked another. */
  answer(exchange: CassetteExchange, response: JsonObject): { response: JsonObject; note?: VersionNote } {
    const result = response.result;
    if (exchange.method !== 'initialize' || !isObject(result) || typeof result.protocolVersion !== 'string')
      return { response };
    const recordedAsked = exchange.request.params?.protocolVersion;
    const recorded = {
      answered: result.protocolVersion,
      asked: typeof recordedAsked === 'string' ? recordedAsked : undefined,
    };
    const answered = negotiatedVersion(recorded, this.asked);
    const note: VersionNote | undefined =
      this.asked !== undefined && this.asked !== recorded.answered
        ? { via: 'initialize', recorded: recorded.answered, asked: this.asked, answered }
        : undefined;
    const out =
      answered === recorded.answered
        ? response
        : { ...response, result: { ...result, protocolVersion: answered } };
    return note ? { response: out, note } : { response: out };
  }

  /** A note when a 2026-era request carries another `_meta` protocol version than the recorded request did. */
  compare(exchange: CassetteExchange, request: RpcRequest): VersionNote | undefined {
    const asked = metaVersion(request.params);
    // Most requests carry no version: the recorded one is not read for them.
    if (asked === undefined) return undefined;
    const recorded = metaVersion(recordedRequest(exchange).request.params);
    if (recorded === undefined || recorded === asked) return undefined;
    return { via: 'request', recorded, asked, answered: recorded };
  }
}

function metaVersion(params: JsonObject | undefined): string | undefined {
  const meta = params?._meta;
  const version = isObject(meta) ? meta[VERSION_KEY] : undefined;
  return typeof version === 'string' ? version : undefined;
}
