import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { TapedeckError } from '../base/errors.js';
import { type FaultProfile, faultProfile } from './profile.js';

/**
 * Reads a fault profile file: JSON (`.json`, or text that starts with `{` / `[`), else YAML. The YAML parser is
 * loaded only for a YAML file. Every failure is TapedeckError('usage') naming the file.
 *
 * @example const { faults, seed } = await loadFaultProfile('faults.yaml');
 */
export async function loadFaultProfile(path: string): Promise<FaultProfile> {
  const where = `--faults ${path}`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new TapedeckError(
      'usage',
      `${where}: cannot read the file (${code}); expected a JSON or YAML fault profile`,
    );
  }
  const json = extname(path).toLowerCase() === '.json' || /^\s*[[{]/.test(text);
  let document: unknown;
  try {
    if (json) document = JSON.parse(text);
    else {
      const { parse } = await import('yaml');
      document = parse(text);
    }
  } catch (error) {
    const why = ((error as Error).message ?? String(error)).split('\n', 1)[0];
    throw new TapedeckError('usage', `${where} is not valid ${json ? 'JSON' : 'YAML'}: ${why}`);
  }
  return faultProfile(document, where);
}
