import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Every place tapedeck keeps or looks for its files by default, each moved by an environment variable: the
 * tapedeck home (`$TAPEDECK_HOME`, else `~/.tapedeck`) with the redaction key, the collector's token and database,
 * `tapedeck mcp`'s trajectories and the probes waiting for their cassettes; the traces folder (`$TAPEDECK_DIR`);
 * the redact config files (the user's under `$XDG_CONFIG_HOME`, a project's in the folder tapedeck runs in).
 */

/** A variable's value, or undefined when it is unset or empty (an empty value means "not set"). */
function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value !== undefined && value !== '' ? value : undefined;
}

/** `$TAPEDECK_HOME`, else `~/.tapedeck`. @example tapedeckHome({}) // → '/home/me/.tapedeck' */
export function tapedeckHome(env: NodeJS.ProcessEnv = process.env): string {
  return fromEnv(env, 'TAPEDECK_HOME') ?? join(homedir(), '.tapedeck');
}

/**
 * Where traces go when no --out/--file is given: `$TAPEDECK_DIR` or `~/.tapedeck/traces` (under the home folder
 * itself, whatever `TAPEDECK_HOME` says).
 *
 * @example defaultTraceDir({ TAPEDECK_DIR: '/srv/traces' }) // → '/srv/traces'
 */
export function defaultTraceDir(env: NodeJS.ProcessEnv = process.env): string {
  return fromEnv(env, 'TAPEDECK_DIR') ?? join(homedir(), '.tapedeck', 'traces');
}

/** The redaction key behind `hash` mode: `<tapedeck home>/redact.key`. */
export function redactKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tapedeckHome(env), 'redact.key');
}

/** The collector's database: `<tapedeck home>/tapedeck.db`. */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tapedeckHome(env), 'tapedeck.db');
}

/** The collector's write token: `<tapedeck home>/token`. */
export function tokenPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tapedeckHome(env), 'token');
}

/** The data folder of `tapedeck mcp`: `$TAPEDECK_HOME/trajectories`, else `~/.tapedeck/trajectories`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(tapedeckHome(env), 'trajectories');
}

/** Where a probe's discovery waits for its session, one file per cassette: `<tapedeck home>/probes`. */
export function probeStashDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(tapedeckHome(env), 'probes');
}

/** `$XDG_CONFIG_HOME/tapedeck/redact.json`, else `~/.config/tapedeck/redact.json`. */
export function userRedactPath(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.config');
  return join(base, 'tapedeck', 'redact.json');
}

/** `.tapedeck/redact.json` in the folder tapedeck runs in. */
export function projectRedactPath(cwd = process.cwd()): string {
  return join(cwd, '.tapedeck', 'redact.json');
}
