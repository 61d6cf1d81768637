import { open, readFile } from 'node:fs/promises';
import { TapedeckError } from '../../base/errors.js';
import type { TraceFiles } from '../../trace/import/files.js';
import { nodeTraceFiles, openTrace } from '../../trace/io.js';
import type { JsonObject } from '../../trace/jsonrpc.js';
import { DefinitionCollector, type Definitions } from './definitions.js';
import { isLock, LOCK_MARK, lockLines, parseLock } from './lock.js';

/** Definitions from a file, and where each item is when the file is a lock file. */
export interface LoadedDefinitions {
  file: string;
  source: 'lock' | 'trace';
  definitions: Definitions;
  /** For a lock file: each item's line, by `kind \0 id`. */
  lines?: Map<string, number> | undefined;
  /** For a recording: the capabilities its client declared, so a live listing can ask as that client did. */
  clientCapabilities?: JsonObject | undefined;
}

/**
 * Reads definitions from a lock file or from a recording of any format tapedeck reads.
 *
 * @example const { definitions } = await loadDefinitions('tools.lock.json');
 */
export async function loadDefinitions(
  path: string,
  files: TraceFiles = nodeTraceFiles,
): Promise<LoadedDefinitions> {
  const lock = await readLock(path);
  if (lock !== undefined)
    return {
      file: path,
      source: 'lock',
      definitions: parseLock(lock.value, path),
      lines: lockLines(lock.text),
    };
  const trace = await openTrace(path, {}, files);
  const collector = new DefinitionCollector();
  for await (const batch of trace.batches()) for (const { line } of batch) collector.push(line);
  const definitions = collector.result();
  if (Object.keys(definitions).length === 0)
    throw new TapedeckError(
      'input',
      `${path} holds no tools/list, prompts/list or resources/list answer to compare`,
    );
  return { file: path, source: 'trace', definitions, clientCapabilities: collector.clientCapabilities() };
}

/** A lock file says so in its first line or two; anything else is left to the trace reader. */
async function readLock(path: string) {
  let text: string;
  try {
    const handle = await open(path, 'r');
    try {
      const head = Buffer.alloc(256);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      if (!head.subarray(0, bytesRead).toString('utf8').includes(LOCK_MARK)) return undefined;
    } finally {
      await handle.close();
    }
    text = await readFile(path, 'utf8');
  } catch {
    return undefined; // openTrace names what is wrong with the path
  }
  try {
    const value: unknown = JSON.parse(text);
    return isLock(value) ? { value, text } : undefined;
  } catch {
    throw new TapedeckError('input', `${path} looks like a lock file but is not valid JSON`);
  }
}
