import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { tapedeckHome } from '../../base/paths.js';
import { makePrivateFolder } from '../../base/private-files.js';

/**
 * What the bridge keeps of an OAuth sign-in between runs: the client it registered and the tokens it was given, one
 * file per upstream URL (`<tapedeck home>/oauth/<sha256 of the URL>.json`, 0600 in a 0700 folder), so the next
 * recording against the same server starts signed in and refreshes when it must. A store without a folder keeps
 * everything in memory for the run only.
 */
export interface OAuthSaved {
  client?: OAuthClientInformationFull;
  tokens?: OAuthTokens;
}

export class OAuthStore {
  private saved: OAuthSaved = {};
  readonly path: string | undefined;

  /** `folder` undefined: memory only. */
  constructor(upstream: string, folder: string | undefined) {
    if (folder === undefined) return;
    const key = createHash('sha256').update(upstream, 'utf8').digest('hex').slice(0, 32);
    this.path = join(folder, `${key}.json`);
    this.saved = readSaved(this.path);
  }

  get client(): OAuthClientInformationFull | undefined {
    return this.saved.client;
  }

  get tokens(): OAuthTokens | undefined {
    return this.saved.tokens;
  }

  update(change: Partial<OAuthSaved>): void {
    this.saved = { ...this.saved, ...change };
    this.write();
  }

  /** Forgets the tokens (and, with `client`, the registration too): the server no longer honours them. */
  forget(what: 'tokens' | 'all'): void {
    this.saved = what === 'all' ? {} : { ...(this.saved.client ? { client: this.saved.client } : {}) };
    this.write();
  }

  private write(): void {
    const { path } = this;
    if (path === undefined) return;
    makePrivateFolder(join(path, '..'));
    // Written aside and renamed into place: a reader never sees half a file, and a link planted at the path is
    // replaced, never followed.
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temp, `${JSON.stringify(this.saved)}\n`, { flag: 'wx', mode: 0o600 });
    try {
      renameSync(temp, path);
    } catch (err) {
      unlinkSync(temp);
      throw err;
    }
  }
}

/** The folder the bridge keeps sign-ins in by default. */
export function defaultOAuthFolder(env: NodeJS.ProcessEnv = process.env): string {
  return join(tapedeckHome(env), 'oauth');
}

/** A saved sign-in, or nothing when there is none (or the file is not a plain file of ours). */
function readSaved(path: string): OAuthSaved {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile()) return {};
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return value !== null && typeof value === 'object' ? (value as OAuthSaved) : {};
  } catch {
    return {};
  }
}
