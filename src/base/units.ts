/**
 * Sizes and durations as people write and read them: one duration grammar for every flag and API field that takes
 * one (`30d`, `12h`, `1.5m`, `500ms`); latencies and offsets into a trace as the timeline and the viewer show
 * them; and one way of scaling a byte count to a unit, written in the style of the place it is shown in (a
 * terminal table, an error message, the web viewer, a report's size). Pure.
 */

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A duration such as `30d`, `12h`, `90m`, `1.5m`, `45s`, `2w` or `500ms`, in whole milliseconds; undefined when the
 * text is not one, or names less than a millisecond.
 *
 * @example parseDuration('30d') // → 2_592_000_000
 * @example parseDuration('1.5m') // → 90_000
 */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/i.exec(value.trim());
  if (!match) return undefined;
  const ms = Math.round(Number(match[1]) * (DURATION_UNITS[match[2]!.toLowerCase()] as number));
  return ms >= 1 ? ms : undefined;
}

/**
 * An offset from the start of a trace, to the millisecond.
 *
 * @example formatOffset(12_345) // → '+12.345s'
 */
export function formatOffset(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${(Math.abs(ms) / 1000).toFixed(3)}s`;
}

/**
 * A latency: whole milliseconds below 10 s, seconds with one decimal from there; `spaced` puts a space before the
 * unit (the viewer's cells), the terminal's columns go without.
 *
 * @example formatLatency(2005) // → '2005ms'
 * @example formatLatency(12_340, { spaced: true }) // → '12.3 s'
 */
export function formatLatency(ms: number, { spaced = false }: { spaced?: boolean } = {}): string {
  const gap = spaced ? ' ' : '';
  return ms < 10_000 ? `${Math.round(ms)}${gap}ms` : `${(ms / 1000).toFixed(1)}${gap}s`;
}

/** One unit of a byte style: its name, and how many decimals a count in it gets. */
export interface ByteUnit {
  name: string;
  decimals: number;
  /** No decimals from this count up (`9.5 KB`, but `10 KB`). */
  wholeFrom?: number;
  /** Whole counts are rounded up (a file of 1,100 bytes is never said to be 1 KB). */
  roundUp?: boolean;
}

/** How byte counts are written: units from the smallest used up, each 1024 of the one before. */
export interface ByteStyle {
  units: readonly ByteUnit[];
  /** Powers of 1024 below the first unit: 1 when the first unit is a kilobyte. */
  skip?: number;
  /** A count that is whole is written without decimals (`64 KiB`, `1.5 KiB`). */
  trimWhole?: boolean;
}

const binary = (decimals: number): ByteUnit[] =>
  ['KiB', 'MiB', 'GiB', 'TiB'].map((name) => ({ name, decimals }));

/** The styles byte counts are shown in. */
export const BYTE_STYLES = {
  /** Terminal tables (`ls`, `stats`): `512 B`, `1.0 KiB`, `3.5 MiB`. */
  table: { units: [{ name: 'B', decimals: 0 }, ...binary(1)] },
  /** Sentences (a limit in an error message): `512 bytes`, `64 KiB`, `1.5 KiB`. */
  prose: { units: [{ name: 'bytes', decimals: 0 }, ...binary(1)], trimWhole: true },
  /** The web viewer: `512 B`, `1.5 KB`, `10 KB`, `3.5 MB`. */
  viewer: {
    units: [
      { name: 'B', decimals: 0 },
      { name: 'KB', decimals: 1, wholeFrom: 10 },
      { name: 'MB', decimals: 1 },
    ],
  },
  /** A written file's size (`tapedeck report`): whole kilobytes rounded up, then `1.2 MB`. */
  file: {
    skip: 1,
    units: [
      { name: 'KB', decimals: 0, roundUp: true },
      { name: 'MB', decimals: 1 },
    ],
  },
} as const satisfies Record<string, ByteStyle>;

/**
 * A byte count scaled to the largest unit of `style` it reaches (each unit is 1024 of the one before).
 *
 * @example formatBytes(1536) // → '1.5 KiB'
 * @example formatBytes(65_536, BYTE_STYLES.prose) // → '64 KiB'
 */
export function formatBytes(bytes: number, style: ByteStyle = BYTE_STYLES.table): string {
  let value = bytes / 1024 ** (style.skip ?? 0);
  let index = 0;
  while (value >= 1024 && index < style.units.length - 1) {
    value /= 1024;
    index += 1;
  }
  const unit = style.units[index] as ByteUnit;
  if (index === 0 && (style.skip ?? 0) === 0) return `${bytes} ${unit.name}`;
  const decimals = unit.wholeFrom !== undefined && value >= unit.wholeFrom ? 0 : unit.decimals;
  const count =
    style.trimWhole === true && Number.isInteger(value)
      ? String(value)
      : decimals === 0 && unit.roundUp === true
        ? String(Math.ceil(value))
        : value.toFixed(decimals);
  return `${count} ${unit.name}`;
}
