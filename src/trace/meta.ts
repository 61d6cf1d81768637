import { PRODUCER } from '../base/version.js';
import { timestamp } from './encode.js';
import type { MetaLine, TransportKind } from './types.js';

/** What differs between the traces tapedeck starts (undefined fields are left out); the rest is always the same. */
export interface NewMetaFields {
  label: string;
  startedAt?: string | undefined;
  command?: string[] | undefined;
  transport?: TransportKind | undefined;
  server?: string | undefined;
  url?: string | undefined;
  [extra: string]: unknown;
}

/**
 * The meta line of a new trace: version, kind, producer, a fresh traceId, segment 0, started now.
 *
 * @example newMeta({ label: 'everything', command: ['node', 'server.js'], transport: 'stdio' })
 */
export function newMeta(fields: NewMetaFields): MetaLine {
  const { label, startedAt, ...rest } = fields;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return {
    v: 1,
    type: 'meta',
    startedAt: startedAt ?? timestamp(),
    label,
    ...defined,
    kind: 'mcp',
    producer: { ...PRODUCER },
    traceId: globalThis.crypto.randomUUID(),
    segment: 0,
  };
}
