/** How much a change matters to a client, worst first. */
export type ChangeClass = 'breaking' | 'risky' | 'additive' | 'cosmetic';

export const CHANGE_CLASSES: readonly ChangeClass[] = ['breaking', 'risky', 'additive', 'cosmetic'];

/** One change between two sets of definitions. */
export interface DriftChange {
  class: ChangeClass;
  /** `tools`, `prompts`, `resources` or `resourceTemplates`. */
  kind: string;
  /** The tool's or prompt's name, the resource's uri. */
  item: string;
  /** A JSON path into the item: `$.inputSchema.properties.path.type`. */
  path: string;
  before?: unknown;
  after?: unknown;
  /** One sentence. */
  message: string;
}

/** What `--fail-on` takes: a class, or `any` change at all. */
export type DriftFailOn = ChangeClass | 'any';

/**
 * True when a change fails the run under `--fail-on` (each class fails on itself and the classes worse than it).
 *
 * @example driftFails({ class: 'risky' }, 'breaking') // → false
 */
export function driftFails(change: Pick<DriftChange, 'class'>, failOn: DriftFailOn): boolean {
  if (failOn === 'any') return true;
  return CHANGE_CLASSES.indexOf(change.class) <= CHANGE_CLASSES.indexOf(failOn);
}
