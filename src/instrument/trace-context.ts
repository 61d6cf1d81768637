import type { TraceContextFields } from './types.js';

/** version-traceid-parentid-flags, lower-case hex; all-zero ids are invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** A parsed `traceparent`. */
export interface ParsedTraceparent {
  traceId: string;
  spanId: string;
  flags: number;
}

/**
 * Parses a W3C `traceparent`; undefined for anything malformed, version `ff`, or all-zero ids.
 *
 * @example parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') // { traceId: '4bf9…', spanId: '00f0…', flags: 1 }
 */
export function parseTraceparent(value: string): ParsedTraceparent | undefined {
  const match = TRACEPARENT.exec(value.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff' || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  // Version 00 has exactly four fields; later versions may append more.
  if (version === '00' && value.trim().length !== 55) return undefined;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

/**
 * The W3C trace context a client put in `params._meta` (the MCP convention for propagating traces): kept when
 * `traceparent` is valid, `tracestate` and `baggage` along with it.
 */
export function traceContextOf(params: unknown): TraceContextFields | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent, tracestate, baggage } = meta as Record<string, unknown>;
  if (typeof traceparent !== 'string' || parseTraceparent(traceparent) === undefined) return undefined;
  const fields: TraceContextFields = { traceparent: traceparent.trim() };
  if (typeof tracestate === 'string' && tracestate !== '') fields.tracestate = tracestate;
  if (typeof baggage === 'string' && baggage !== '') fields.baggage = baggage;
  return fields;
}
