import { isErrorResult, isObject, type RpcRequest } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { RuleContext } from './context.js';
import type { CompiledSchema, SchemaCheck } from './json-schema.js';
import { paramHeaders } from './routing-headers.js';
import type { Pending } from './session.js';

/** Learns the tools a tools/list page offers, compiling their schemas; a schema that cannot be used is a finding. */
export function learnTools(ctx: RuleContext, result: Json | undefined): void {
  if (!isObject(result) || !Array.isArray(result.tools)) return;
  ctx.session.toolsListed = true;
  for (const tool of result.tools) {
    if (!isObject(tool) || typeof tool.name !== 'string') continue;
    const name = tool.name;
    const compile = (key: 'inputSchema' | 'outputSchema'): CompiledSchema | undefined => {
      if (tool[key] === undefined) return undefined;
      const compiled = ctx.compiler.compile(tool[key]);
      if (!compiled.ok)
        ctx.report({
          rule: 'tools/bad-schema',
          message: `tool "${name}" has an ${key} lint cannot use: ${compiled.reason}`,
        });
      return compiled;
    };
    ctx.session.tools.set(name, {
      input: compile('inputSchema'),
      output: compile('outputSchema'),
      headers: paramHeaders(tool.inputSchema),
    });
  }
}

/** A tools/call: a tool the session's tools/list never offered, and arguments against its inputSchema. */
export function checkToolCall(ctx: RuleContext, item: RpcRequest): void {
  const name = item.params?.name;
  if (typeof name !== 'string') return;
  const tool = ctx.session.tools.get(name);
  if (tool === undefined) {
    if (ctx.session.toolsListed)
      ctx.report({
        rule: 'tools/unlisted',
        message: `tools/call of "${name}", which no tools/list answer of this session offered`,
      });
    return;
  }
  if (tool.input?.ok !== true) return;
  const args = item.params?.arguments ?? {};
  report(ctx, 'tools/input-schema', `the arguments of "${name}"`, 'its inputSchema', tool.input.check(args));
}

/** A tools/call result: structuredContent against the tool's outputSchema, unless the result is an error. */
export function checkToolResult(ctx: RuleContext, pending: Pending, result: Json | undefined): void {
  const name = pending.params?.name;
  if (typeof name !== 'string' || !isObject(result) || isErrorResult(result)) return;
  if (result.resultType === 'input_required') return;
  const output = ctx.session.tools.get(name)?.output;
  if (output?.ok !== true) return;
  if (result.structuredContent === undefined) {
    ctx.report({
      rule: 'tools/output-schema',
      message: `tool "${name}" declares an outputSchema but its result (request on line ${pending.line}) has no structuredContent`,
    });
    return;
  }
  report(
    ctx,
    'tools/output-schema',
    `the structuredContent of "${name}"`,
    'its outputSchema',
    output.check(result.structuredContent),
  );
}

function report(ctx: RuleContext, rule: string, what: string, against: string, check: SchemaCheck): void {
  if (check.ok === true) return;
  if (check.ok === 'slow') {
    ctx.report({
      rule: 'tools/bad-schema',
      message: `checking ${what} against ${against} took ${Math.round(check.ms)} ms; that schema is not used again in this trace`,
    });
    return;
  }
  ctx.report({ rule, message: `${what} fail ${against}: ${check.path} ${check.message}` });
}
