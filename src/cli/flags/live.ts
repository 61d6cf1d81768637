import type { Command } from 'commander';
import { collectorBase } from '../../sink/collector-client.js';
import { usageError } from '../errors.js';

/** `--live [url]`: a recording also streamed to a collector for the web viewer (record, record --upstream). */

/** The `--live [url]` flag as commander leaves it: absent, `true` (no URL) or the URL. */
export interface LiveFlag {
  live?: true | string;
}

/**
 * Parses the optional value of `--live [url]`: commander gives `true` when no URL follows.
 *
 * @example parseLiveUrl('http://127.0.0.1:7420/') // 'http://127.0.0.1:7420'
 */
export function parseLiveUrl(value: string): string {
  try {
    return collectorBase(value);
  } catch {
    throw usageError(`--live takes the collector's URL such as http://127.0.0.1:7420; got '${value}'`);
  }
}

/**
 * Adds `--live [url]` to a command.
 *
 * @example addLiveFlag(program.command('record')); … recordingSink(options, label, file, io)
 */
export function addLiveFlag(command: Command): Command {
  return command.option(
    '--live [url]',
    'also stream the recording to a collector for the web viewer (no URL: one inside this recorder); ' +
      'stderr says where to watch',
    parseLiveUrl,
  );
}

/** The collector URL of a `--live` flag: undefined for a bare `--live` (an in-process collector). */
export function liveUrlOf(flag: LiveFlag): string | undefined {
  return flag.live === true ? undefined : flag.live;
}
