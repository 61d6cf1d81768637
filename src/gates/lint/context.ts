import type { RawFinding } from './finding.js';
import type { SchemaCompiler } from './json-schema.js';
import type { EraSchemas } from './protocol-schemas.js';
import type { LintSession } from './session.js';

/** Where a message is: the file and line the reader gave it. */
export interface LineRef {
  file: string;
  line: number;
}

/** What every rule gets: the session, where the message is, a way to report, and the shared compilers. */
export interface RuleContext {
  session: LintSession;
  at: LineRef;
  report(finding: Omit<RawFinding, 'file' | 'line' | 'session'>): void;
  compiler: SchemaCompiler;
  schemas: EraSchemas | undefined;
}
