/**
 * `auto`: replay when the cassette exists, else record. `record`: always record (overwrite). `replay`: serve the
 * cassette, no server runs, anything unrecorded fails. `update`: replay what matches, forward what does not to the
 * live server and add it to the cassette. `passthrough`: run the server, record nothing.
 *
 * Kept apart from run.ts so that reading a project file (which names a mode) loads none of `run`'s machinery.
 */
export type RunMode = 'auto' | 'record' | 'replay' | 'update' | 'passthrough';
export const RUN_MODES: readonly RunMode[] = ['auto', 'record', 'replay', 'update', 'passthrough'];
