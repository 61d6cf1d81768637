import { existsSync } from 'node:fs';
import { it } from 'vitest';

/**
 * Tests that stand /dev/full in for a full disk. macOS has no /dev/full: there they are skipped, and the run says
 * why once.
 */
const NO_DEV_FULL = !existsSync('/dev/full');
if (NO_DEV_FULL)
  console.warn('tapedeck: tests that write to /dev/full are skipped: this system has no /dev/full');

/** `it`, skipped where there is no /dev/full. */
export const itWithDevFull: typeof it.skip = it.skipIf(NO_DEV_FULL);
