import type { FindingLevel } from './rules.js';

/** One thing lint found: a rule, where (file and 1-based line), one sentence, a level. */
export interface LintFinding {
  rule: string;
  level: FindingLevel;
  /** The trace file, as the reader named it. */
  file: string;
  /** 1-based line of the file; 0 for the trace as a whole. */
  line: number;
  message: string;
  /** The session it belongs to, for traces of several (`server conn`), when the trace names one. */
  session?: string | undefined;
}

/** What a rule reports before its level is settled: the checker fills in rule levels from the configuration. */
export type RawFinding = Omit<LintFinding, 'level'>;
