/** The package version, written into every trace's `meta.producer`. Kept in step with package.json by a test. */
export const VERSION = '0.1.0';
export const PRODUCER = { name: 'tapedeck', version: VERSION } as const;
/**
 * The name the package is published under on npm (the command it installs is `tapedeck`). Kept in step with
 * package.json by a test.
 */
export const PACKAGE_NAME = 'mcp-tapedeck';
