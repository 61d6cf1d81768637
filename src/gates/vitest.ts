import { expect } from 'vitest';
import type { Json } from '../trace/types.js';
import type { RuleLevels } from './lint/linter.js';
import { calledTool, calledToolsInOrder, noProtocolErrors, type TraceSubject } from './matchers.js';

/**
 * `import 'mcp-tapedeck/vitest'` extends vitest's `expect` with matchers over a trace file, a `useCassette` session
 * or trace lines in memory. They read the trace, so await them:
 *
 * ```ts
 * await expect(session).toHaveCalledTool('search', { query: 'tapes' });
 * await expect('runs/1.jsonl').toHaveCalledToolsInOrder(['search', 'summarize']);
 * await expect(session).toHaveNoProtocolErrors();
 * ```
 */
export const tapedeckMatchers = {
  toHaveCalledTool: (received: TraceSubject, name: string, args?: Json) => calledTool(received, name, args),
  toHaveCalledToolsInOrder: (received: TraceSubject, names: readonly string[]) =>
    calledToolsInOrder(received, names),
  toHaveNoProtocolErrors: (received: TraceSubject, levels?: RuleLevels) => noProtocolErrors(received, levels),
};

expect.extend(tapedeckMatchers);

interface TapedeckMatchers<R = unknown> {
  toHaveCalledTool(name: string, args?: Json): Promise<R>;
  toHaveCalledToolsInOrder(names: readonly string[]): Promise<R>;
  toHaveNoProtocolErrors(levels?: RuleLevels): Promise<R>;
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the type parameter must match vitest's own declaration.
  interface Assertion<T = any> extends TapedeckMatchers {}
  interface AsymmetricMatchersContaining extends TapedeckMatchers {}
}
