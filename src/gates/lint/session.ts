import { isObject, type JsonObject, type RpcId } from '../../trace/jsonrpc.js';
import type { Direction, Json } from '../../trace/types.js';
import type { CompiledSchema } from './json-schema.js';
import type { Era } from './protocol-schemas.js';
import type { ParamHeader } from './routing-headers.js';

/** The first sessionless revision; revisions are dates and compare as strings. */
export const MODERN_VERSION = '2026-07-28';
/** The one revision that allowed JSON-RPC batches. */
export const BATCH_VERSION = '2025-03-26';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPS_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** A request in flight: what it asked and where. */
export interface Pending {
  method: string;
  line: number;
  file: string;
  params: JsonObject | undefined;
  /** The HTTP status that refused the request before any JSON-RPC answer (a 401 before sign-in, say). */
  refusedWith?: number;
}

/** What a tools/list answer said about one tool. */
export interface ToolSchemas {
  input: CompiledSchema | undefined;
  output: CompiledSchema | undefined;
  /** The `x-mcp-header` annotations of its inputSchema (2026-07-28 `Mcp-Param-*` headers). */
  headers: ParamHeader[];
}

/**
 * What lint knows of one MCP session as it reads on: the negotiated version (and so the era), each side's declared
 * capabilities, the requests in flight each way, the ids already answered, and the tools the server listed.
 */
export class LintSession {
  version: string | undefined;
  clientCaps: JsonObject | undefined;
  serverCaps: JsonObject | undefined;
  /** Requests sent by each side, by id, until answered. */
  readonly inFlight: Record<Direction, Map<RpcId, Pending>> = { in: new Map(), out: new Map() };
  /** Ids answered (by the side that sent the request), to tell an answer twice from an answer to nothing. */
  readonly answered: Record<Direction, Set<RpcId>> = { in: new Set(), out: new Set() };
  readonly tools = new Map<string, ToolSchemas>();
  toolsListed = false;

  constructor(readonly name: string | undefined) {}

  get era(): Era {
    return this.version !== undefined && this.version >= MODERN_VERSION ? 'modern' : 'legacy';
  }

  /** Learns the version and client capabilities from a client request (initialize, or a 2026-era `_meta`). */
  learnFromRequest(method: string, params: JsonObject | undefined): void {
    if (method === 'initialize') {
      if (typeof params?.protocolVersion === 'string') this.version ??= params.protocolVersion;
      if (isObject(params?.capabilities)) this.clientCaps = params.capabilities;
      return;
    }
    const meta = params?._meta;
    if (!isObject(meta)) return;
    if (typeof meta[VERSION_KEY] === 'string') this.version = meta[VERSION_KEY];
    if (isObject(meta[CAPS_KEY])) this.clientCaps = meta[CAPS_KEY];
  }

  /** Learns the negotiated version and server capabilities from an initialize or server/discover answer. */
  learnFromResult(method: string, result: Json | undefined): void {
    if (!isObject(result)) return;
    if (method === 'initialize') {
      if (typeof result.protocolVersion === 'string') this.version = result.protocolVersion;
      if (isObject(result.capabilities)) this.serverCaps = result.capabilities;
    } else if (method === 'server/discover') {
      if (isObject(result.capabilities)) this.serverCaps = result.capabilities;
      if (this.version === undefined && Array.isArray(result.supportedVersions))
        this.version = result.supportedVersions.find((v) => typeof v === 'string' && v >= MODERN_VERSION) as
          | string
          | undefined;
    }
  }
}
