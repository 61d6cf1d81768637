import { createHash } from 'node:crypto';
import { INSTRUMENT_DEFAULTS } from '../../instrument/defaults.js';
import { SessionTable } from '../../instrument/sessions.js';
import type { Implementation } from '../../instrument/types.js';
import type { Json } from '../../trace/types.js';
import { headerValue, type TraceHeaders } from './headers.js';

/** The `_meta` keys a 2026-era request states its protocol version and its client under. */
const ERA_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const ERA_CLIENT_KEY = 'io.modelcontextprotocol/clientInfo';

/**
 * Sessions of stateless traffic. The 2026-07-28 revision removed `Mcp-Session-Id`: each request names its protocol
 * version and client in `_meta`, and nothing on the wire ties one request to the next. The recorder keys them
 * itself, as `instrument()` does: one session per client identity (a hash of its credentials and user agent, kept
 * in memory only) and client info, and a new one after `idleMs` without a request.
 *
 * @example const key = sessions.keyOf(headers, body); if (key) line.conn = key.id;
 */
export class StatelessSessions {
  private readonly table: SessionTable;
  /** Keys already announced with a `session` event. */
  private readonly announced = new Set<string>();

  constructor(
    private readonly now: () => number,
    idleMs: number = INSTRUMENT_DEFAULTS.sessionIdleTimeout,
  ) {
    this.table = new SessionTable(idleMs, (id) => this.announced.delete(id));
  }

  /**
   * The session of a request that named none, when it is of the stateless era (else undefined), and, the first
   * time a key is given out, the fields of the `session` event that announces it: the era said explicitly.
   */
  keyOf(headers: TraceHeaders, raw: Json): { id: string; announce?: Record<string, Json> } | undefined {
    const first = Array.isArray(raw) ? raw[0] : raw;
    const meta = isRecord(first) && isRecord(first.params) ? first.params._meta : undefined;
    if (!isRecord(meta)) return undefined;
    const version = meta[ERA_VERSION_KEY];
    if (typeof version !== 'string') return undefined;
    const info = meta[ERA_CLIENT_KEY];
    const client: Implementation | undefined =
      isRecord(info) && typeof info.name === 'string'
        ? { name: info.name, version: typeof info.version === 'string' ? info.version : '' }
        : undefined;
    const at = this.now();
    this.table.sweep(at);
    const identity = createHash('sha256')
      .update(
        `${headerValue(headers, 'authorization') ?? ''}\u0000${headerValue(headers, 'user-agent') ?? ''}`,
      )
      .digest('hex');
    const id = this.table.resolve(identity, client ?? this.table.recallClient(identity, at), undefined, at);
    if (this.announced.has(id)) return { id };
    this.announced.add(id);
    const announce: Record<string, Json> = {
      sessionId: id,
      era: 'stateless',
      minted: true,
      protocolVersion: version,
    };
    if (client !== undefined) announce.client = { name: client.name, version: client.version };
    return { id, announce };
  }
}

function isRecord(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
