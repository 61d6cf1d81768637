/** Structural diffs live with the trace format (src/trace/json-diff.ts), so the viewer and `diff` share them. */
export {
  childPath,
  DIFF_DEFAULTS,
  type DiffEntry,
  type DiffOptions,
  diffSize,
  formatDiff,
  formatValue,
  type StructuralDiff,
  structuralDiff,
} from '../../trace/json-diff.js';
