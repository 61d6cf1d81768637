/**
 * What install does not write: a config file someone made read-only (a folder that is writable would let a rename
 * replace it anyway), and the temporary file beside a config when a link was planted at its name.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/install/apply.js';
import { useCliHarness } from '../helpers/cli.js';

const io = useCliHarness('tapedeck-install-ro-');

const CONFIG = `{
  "mcpServers": {
    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] }
  }
}
`;

let config: string;
beforeEach(() => {
  mkdirSync(join(io.dir, 'home', '.cursor'), { recursive: true });
  mkdirSync(join(io.dir, 'bin'));
  writeFileSync(join(io.dir, 'bin', 'npx'), '#!/bin/sh\n', { mode: 0o755 });
  config = join(io.dir, 'home', '.cursor', 'mcp.json');
  writeFileSync(config, CONFIG);
  io.env.HOME = join(io.dir, 'home');
  io.env.PATH = join(io.dir, 'bin');
});

describe('install and read-only configs', () => {
  it('refuses a read-only (0444) config in a writable folder with one line, unless --force', async () => {
    chmodSync(config, 0o444);
    expect(await io.run(['install', '--target', 'cursor'])).toBe(1);
    expect(readFileSync(config, 'utf8')).toBe(CONFIG);
    expect(io.stdout).toContain(
      `✗ not written: ${config} is read-only (mode 0444); make it writable (chmod u+w), or pass --force to rewrite it anyway; the file is as it was`,
    );
    io.stdout = '';
    expect(await io.run(['install', '--target', 'cursor', '--force'])).toBe(0);
    expect(readFileSync(config, 'utf8')).toContain('"record"');
    expect(statSync(config).mode & 0o777).toBe(0o444);
    // Uninstall asks the same of a file that is read-only again.
    expect(await io.run(['uninstall', '--target', 'cursor'])).toBe(1);
    expect(readFileSync(config, 'utf8')).toContain('"record"');
    expect(await io.run(['uninstall', '--target', 'cursor', '--force'])).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(CONFIG);
  });

  it('never writes its temporary file through a link planted at the name it used to take', () => {
    const outside = join(io.dir, 'outside');
    mkdirSync(outside);
    const rc = join(outside, 'bashrc');
    writeFileSync(rc, 'export PATH=/usr/bin\n');
    symlinkSync(rc, join(io.dir, 'home', '.cursor', `.mcp.json.tapedeck-${process.pid}.tmp`));
    writeConfig(config, '{}\n');
    expect(readFileSync(rc, 'utf8')).toBe('export PATH=/usr/bin\n');
    expect(readFileSync(config, 'utf8')).toBe('{}\n');
    // The backup is the original, taken once.
    expect(readFileSync(`${config}.tapedeck.bak`, 'utf8')).toBe(CONFIG);
  });

  it('leaves a backup name that is a link alone: no backup is written through it', () => {
    const outside = join(io.dir, 'outside');
    mkdirSync(outside);
    const target = join(outside, 'not-a-backup');
    symlinkSync(target, `${config}.tapedeck.bak`);
    writeConfig(config, '{}\n');
    expect(() => readFileSync(target)).toThrow();
    expect(readFileSync(config, 'utf8')).toBe('{}\n');
  });
});
