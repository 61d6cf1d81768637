// Empties dist/ before a build, so that nothing from a file since deleted or renamed is left to be packed.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
