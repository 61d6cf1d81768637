import { fileURLToPath } from 'node:url';

/**
 * The viewer imports the trace module as `mcp-tapedeck/trace`, the name users import it by. Built, the package
 * resolves that name to dist/trace through its exports map; the viewer's build and its unit tests read the
 * TypeScript source instead (the same file dist/trace is compiled from), so neither needs the library built first.
 * tsconfig.json maps the name the same way for the type checker.
 *
 * @example defineConfig({ resolve: { alias: [TRACE_ENTRY_ALIAS] } })
 */
export const TRACE_ENTRY_ALIAS = {
  find: /^mcp-tapedeck\/trace$/,
  replacement: fileURLToPath(new URL('../src/trace/index.ts', import.meta.url)),
};

/**
 * The redaction module, `mcp-tapedeck/redact`, by the same rule: the viewer's HAR export redacts with the rules
 * `tapedeck convert --to har` uses, through the entry users import them from.
 *
 * @example defineConfig({ resolve: { alias: [TRACE_ENTRY_ALIAS, REDACT_ENTRY_ALIAS] } })
 */
export const REDACT_ENTRY_ALIAS = {
  find: /^mcp-tapedeck\/redact$/,
  replacement: fileURLToPath(new URL('../src/redact/index.ts', import.meta.url)),
};

/**
 * The agent's run, `mcp-tapedeck/llm/run`, by the same rule: the Agent view pairs model calls and links them to MCP
 * calls with the functions `tapedeck show --llm` uses.
 *
 * @example defineConfig({ resolve: { alias: [TRACE_ENTRY_ALIAS, REDACT_ENTRY_ALIAS, LLM_RUN_ENTRY_ALIAS] } })
 */
export const LLM_RUN_ENTRY_ALIAS = {
  find: /^mcp-tapedeck\/llm\/run$/,
  replacement: fileURLToPath(new URL('../src/llm/run-entry.ts', import.meta.url)),
};
