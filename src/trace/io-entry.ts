/**
 * `mcp-tapedeck/trace/io`: the node side of the trace module — a trace opened or loaded from a path, and the
 * TraceFiles that reads node's file system. The rest of io.ts (private files, pipes) serves tapedeck's own commands.
 */
export { type LoadedTrace, loadTrace, nodeTraceFiles, openTrace } from './io.js';
