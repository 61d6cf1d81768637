import { TapedeckError } from '../../base/errors.js';
import type { TraceFiles } from '../../trace/import/files.js';
import type { TraceFormat } from '../../trace/import/opened.js';
import { nodeTraceFiles, noFollowTraceFiles, openTrace } from '../../trace/io.js';
import type { ReadMode, TraceDiagnostic } from '../../trace/reader.js';
import type { MetaLine } from '../../trace/types.js';
import { buildCassette } from './cassette.js';
import type { Cassette } from './types.js';

/**
 * Opening a cassette file: any trace format tapedeck reads (tapedeck / mcp-tape JSONL with rotated segments,
 * mcporter NDJSON, shack trajectories, HTTP exchange captures), one server chosen, errors that say what to do.
 */

export interface LoadCassetteOptions {
  /** Which server of a multi-server trace (mcporter records several per file). */
  server?: string | undefined;
  /** `lenient` (default) skips corrupt lines and reports them; `strict` fails on the first. */
  mode?: ReadMode;
  /** Corrupt lines skipped, a missing end line … (what replay cannot use is in `cassette.warnings`). */
  onDiagnostic?: (diagnostic: TraceDiagnostic) => void;
  /**
   * `refuse` for a cassette about to be rewritten in place: a cassette that is a symbolic link fails, a rotated
   * segment that is one is left out (see noFollowTraceFiles). Default `follow`.
   */
  links?: 'follow' | 'refuse';
  /**
   * Where the cassette's bytes come from with `links: 'follow'`: the local files, `-` being the process's stdin
   * (default); the CLI passes its own, so `-` is the run's stdin.
   */
  files?: TraceFiles | undefined;
}

export interface LoadedCassette {
  cassette: Cassette;
  path: string;
  format: TraceFormat;
  meta: MetaLine;
  /** The files the cassette was read from, oldest segment first (one unless the recording was rotated). */
  files: string[];
  diagnostics: TraceDiagnostic[];
  /** How many diagnostics were errors (corrupt lines skipped): the cassette may be missing exchanges. */
  errors: number;
}

/**
 * Reads a cassette file. Fails with a one-line TapedeckError: `not_found` (no such cassette), `is_directory`,
 * `unknown_format`, `usage` (an unknown `server`, or several servers and none chosen), `input` (nothing to replay).
 *
 * @example
 * const { cassette } = await loadCassette('fixtures/session.jsonl', { onDiagnostic: (d) => console.warn(d.message) });
 * const { done } = serveStdio(cassette, { input: process.stdin, output: process.stdout });
 */
export async function loadCassette(path: string, options: LoadCassetteOptions = {}): Promise<LoadedCassette> {
  const diagnostics: TraceDiagnostic[] = [];
  const onDiagnostic = (diagnostic: TraceDiagnostic) => {
    diagnostics.push(diagnostic);
    options.onDiagnostic?.(diagnostic);
  };
  let trace: Awaited<ReturnType<typeof openTrace>>;
  try {
    // Responses are kept as their lines' text and parsed when served: most of a big cassette never is.
    trace = await openTrace(
      path,
      { mode: options.mode ?? 'lenient', onDiagnostic, lineText: true },
      options.links === 'refuse' ? noFollowTraceFiles : (options.files ?? nodeTraceFiles),
    );
  } catch (err) {
    if (err instanceof TapedeckError && err.code === 'not_found') {
      throw new TapedeckError(
        'not_found',
        `no such cassette: ${path} (record one with: tapedeck record --file ${path} -- <server command…>)`,
        { cause: err },
      );
    }
    throw err;
  }
  const cassette = await buildCassette(trace.batches(), {
    meta: trace.meta,
    ...(options.server !== undefined ? { server: options.server } : {}),
  });
  if (cassette.exchanges.length === 0 && cassette.unsolicited.length === 0) {
    const which = cassette.server === undefined ? '' : ` for server "${cassette.server}"`;
    throw new TapedeckError(
      'input',
      `${path} holds no MCP messages${which} to replay: expected a recorded session (tapedeck record, mcp-tape, mcporter)`,
    );
  }
  return {
    cassette,
    path,
    format: trace.format,
    meta: trace.meta,
    files: trace.segments.map((segment) => segment.file),
    diagnostics,
    errors: diagnostics.filter((d) => d.severity === 'error').length,
  };
}
