import { formatId, isObject, type RpcItem, type RpcResponse } from '../../trace/jsonrpc.js';
import type { Direction, Json } from '../../trace/types.js';
import type { RuleContext } from './context.js';
import { schemaProblem } from './protocol-schemas.js';
import type { Pending } from './session.js';
import { BATCH_VERSION, MODERN_VERSION } from './session.js';

/** The side that sent a request a message in `dir` answers. */
export const opposite = (dir: Direction): Direction => (dir === 'in' ? 'out' : 'in');

const who = (dir: Direction) => (dir === 'in' ? 'client' : 'server');

/**
 * A batch where the session's version has none: only 2025-03-26 allowed them (an unknown version is given the
 * benefit of the doubt).
 */
export function checkBatch(ctx: RuleContext, dir: Direction, size: number): void {
  const version = ctx.session.version;
  if (version === undefined || version === BATCH_VERSION || version < BATCH_VERSION) return;
  ctx.report({
    rule: 'jsonrpc/batch',
    message: `the ${who(dir)} sent a batch of ${size} messages, but protocol version ${version} has no JSON-RPC batches (only ${BATCH_VERSION} had them)`,
  });
}

/** A request: an id already in flight that way, then its schema. */
export function checkRequest(ctx: RuleContext, dir: Direction, item: RpcItem & { kind: 'request' }): void {
  const { session, at } = ctx;
  const open = session.inFlight[dir];
  const earlier = open.get(item.id);
  // A request the HTTP layer refused is over: the client may send it again with the same id (after signing in).
  if (earlier !== undefined && earlier.refusedWith === undefined)
    ctx.report({
      rule: 'jsonrpc/id-reused',
      message: `the ${who(dir)} reused id ${formatId(item.id)} for "${item.method}" while its "${earlier.method}" of line ${earlier.line} is still unanswered`,
    });
  open.set(item.id, { method: item.method, line: at.line, file: at.file, params: item.params });
  checkMessageSchema(ctx, dir, item.method, item);
}

/** A message against the schema of its method for the session's era (methods the SDK does not know pass). */
export function checkMessageSchema(ctx: RuleContext, dir: Direction, method: string, item: RpcItem): void {
  const schema = ctx.schemas?.messages[dir].get(method);
  if (schema === undefined || item.kind === 'invalid' || item.kind === 'response') return;
  const problem = schemaProblem(schema, {
    method,
    ...(item.params === undefined ? {} : { params: item.params }),
  });
  if (problem !== undefined)
    ctx.report({
      rule: 'schema/message',
      message: `${who(dir)} ${item.kind} "${method}" does not match the ${ctx.session.version ?? 'assumed'} schema (${ctx.schemas?.source}): ${problem}`,
    });
}

/**
 * A response: the request it answers (none, or one answered already, is a finding), then its result's schema.
 * Returns the request it answers, for the rules that look at both.
 */
export function checkResponse(ctx: RuleContext, dir: Direction, item: RpcResponse): Pending | undefined {
  const { session } = ctx;
  // An error about a request that could not be read carries id null: it answers nothing by design.
  if (item.id === null) return undefined;
  const asker = opposite(dir);
  const pending = session.inFlight[asker].get(item.id);
  if (pending === undefined) {
    const twice = session.answered[asker].has(item.id);
    ctx.report({
      rule: twice ? 'jsonrpc/duplicate-response' : 'jsonrpc/unknown-id',
      message: twice
        ? `the ${who(dir)} answered the ${who(asker)}'s request ${formatId(item.id)} a second time`
        : `the ${who(dir)} sent a response with id ${formatId(item.id)}, which no ${who(asker)} request in flight has`,
    });
    return undefined;
  }
  session.inFlight[asker].delete(item.id);
  session.answered[asker].add(item.id);
  if (item.error !== undefined) return pending;
  session.learnFromResult(pending.method, item.result);
  checkResultSchema(ctx, pending, item.result);
  return pending;
}

function checkResultSchema(ctx: RuleContext, pending: Pending, result: Json | undefined): void {
  // A 2026-era round that asks the client for input is not the method's result yet.
  if (isObject(result) && result.resultType === 'input_required') return;
  const schema = ctx.schemas?.results.get(pending.method);
  if (schema === undefined) return;
  const problem = schemaProblem(schema, result);
  if (problem !== undefined)
    ctx.report({
      rule: 'schema/message',
      message: `the result of "${pending.method}" (line ${pending.line}) does not match the ${ctx.session.version ?? 'assumed'} schema (${ctx.schemas?.source}): ${problem}`,
    });
}

/** Requests never answered, at the end of the trace (a 2026-era listen stays open by design). */
export function unanswered(
  ctx: Omit<RuleContext, 'at'>,
  report: (at: Pending, message: string) => void,
): void {
  for (const dir of ['in', 'out'] as const)
    for (const [id, pending] of ctx.session.inFlight[dir]) {
      if (pending.method === 'subscriptions/listen' || pending.refusedWith !== undefined) continue;
      report(
        pending,
        `the ${who(dir)}'s "${pending.method}" request ${formatId(id)} was never answered before the trace ended`,
      );
    }
}

export { MODERN_VERSION };
