/**
 * Config files as Windows editors leave them: CRLF line ends, a UTF-8 byte order mark, UTF-16. Every client's
 * fixture (JSONC and TOML) goes through install → status → uninstall in each form and comes back byte for byte;
 * the wrapped file keeps its form (no bare LF slipped in, the BOM still first) and still parses. A file that is
 * not text is reported and never written.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunOptions, runInstall } from '../../src/install/apply.js';
import { currentTapedeck } from '../../src/install/command.js';
import { editorFor } from '../../src/install/editors.js';
import { decodeConfig, encodeConfig } from '../../src/install/encoding.js';
import type { InstallMode } from '../../src/install/plan.js';
import { TARGET_IDS } from '../../src/install/targets.js';
import { copyFixture, FIXTURE_FILES, FIXTURES, placeOf } from './fixture-home.js';

const FILES = FIXTURE_FILES;

type Form = (text: string) => Buffer;
const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
const FORMS: Record<string, Form> = {
  'CRLF line ends': (text) => Buffer.from(crlf(text), 'utf8'),
  'a UTF-8 byte order mark': (text) =>
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]),
  'CRLF and a byte order mark': (text) =>
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(crlf(text), 'utf8')]),
  'UTF-16 LE with a byte order mark, CRLF': (text) =>
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(crlf(text), 'utf16le')]),
};

let dir: string;
beforeEach(() => {
  // A home with a space and non-ASCII letters, as many Windows profiles have.
  dir = mkdtempSync(join(tmpdir(), 'tapedeck install Zoë Müller '));
  mkdirSync(join(dir, 'bin'));
  for (const name of ['npx', 'uvx', 'docker', 'node'])
    writeFileSync(join(dir, 'bin', name), '#!/bin/sh\n', { mode: 0o755 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(mode: InstallMode): ReturnType<typeof runInstall> {
  const options: RunOptions = {
    mode,
    targets: TARGET_IDS,
    where: {
      home: join(dir, 'home'),
      cwd: join(dir, 'project'),
      platform: process.platform,
    },
    dryRun: false,
    force: false,
    remote: 'skip',
    tapedeck: currentTapedeck(),
    env: { PATH: join(dir, 'bin') },
    platform: process.platform,
  };
  return runInstall(options);
}

describe('config files as Windows leaves them', () => {
  for (const [name, form] of Object.entries(FORMS)) {
    it(`round-trips every client's file with ${name}, byte for byte`, () => {
      copyFixture(dir);
      const originals = new Map<string, Buffer>();
      for (const file of FILES) {
        const bytes = form(readFileSync(join(FIXTURES, file), 'utf8'));
        writeFileSync(placeOf(file, dir), bytes);
        originals.set(file, bytes);
      }

      const installed = run('install');
      expect(installed.filter((o) => o.problem || o.error)).toEqual([]);
      expect(installed.filter((o) => o.written)).toHaveLength(FILES.length);
      for (const file of FILES) {
        const bytes = readFileSync(placeOf(file, dir));
        const before = originals.get(file)!;
        // The same encoding, byte order mark first, and every line end as it was.
        const decoded = decodeConfig(bytes);
        const original = decodeConfig(before);
        if ('problem' in decoded || 'problem' in original) throw new Error(`${file} no longer decodes`);
        expect(decoded.encoding).toBe(original.encoding);
        expect(bytes.subarray(0, 2)).toEqual(before.subarray(0, 2));
        if (original.text.includes('\r\n')) expect(decoded.text.replace(/\r\n/g, '')).not.toContain('\n');
        expect(decoded.text).toContain('"record"');
        const location = installed.find((o) => o.location.path === placeOf(file, dir))!.location;
        expect(editorFor(location).read(decoded.text).problem).toBeUndefined();
        // The backup is the original, byte for byte.
        expect(readFileSync(`${placeOf(file, dir)}.tapedeck.bak`)).toEqual(before);
      }

      const status = run('status');
      expect(status.flatMap((o) => o.servers).filter((s) => s.state === 'wrapped')).toEqual([]);
      expect(status.flatMap((o) => o.servers).some((s) => s.state === 'already-wrapped')).toBe(true);

      expect(run('uninstall').filter((o) => o.problem || o.error)).toEqual([]);
      for (const file of FILES) expect(readFileSync(placeOf(file, dir)), file).toEqual(originals.get(file));
    });
  }

  it('reports a file that is not UTF-8 with where, and leaves it as it is', () => {
    mkdirSync(join(dir, 'home', '.cursor'), { recursive: true });
    mkdirSync(join(dir, 'project'), { recursive: true });
    // Latin-1 "é" in a path, as an old Windows editor saves it.
    const bytes = Buffer.concat([
      Buffer.from('{\r\n  "mcpServers": {\r\n    "x": { "command": "C:\\\\Users\\\\Ren', 'latin1'),
      Buffer.from([0xe9]),
      Buffer.from('\\\\server.exe" }\r\n  }\r\n}\r\n', 'latin1'),
    ]);
    writeFileSync(join(dir, 'home', '.cursor', 'mcp.json'), bytes);
    const outcome = run('install').find((o) => o.location.path === join(dir, 'home', '.cursor', 'mcp.json'))!;
    expect(outcome.exists).toBe(true);
    expect(outcome.written).toBe(false);
    expect(outcome.problem).toMatchObject({ line: 3 });
    expect(outcome.problem?.message).toMatch(/byte \d+ \(0xe9\) is not UTF-8; save the file as UTF-8/);
    expect(readFileSync(join(dir, 'home', '.cursor', 'mcp.json'))).toEqual(bytes);
  });
});

describe('decoding and encoding', () => {
  it('reads each encoding and writes the same bytes back', () => {
    const text = '{\r\n  "név": "Zoë 日本語 🎛"\r\n}\r\n';
    for (const encoding of ['utf8', 'utf8-bom', 'utf16le-bom', 'utf16be-bom'] as const) {
      const bytes = encodeConfig(text, encoding);
      expect(decodeConfig(bytes)).toEqual({ text, encoding });
      expect(encodeConfig(text, encoding)).toEqual(bytes);
    }
    expect(encodeConfig('{}', 'utf8-bom')).toEqual(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
    expect(encodeConfig('{}', 'utf16be-bom')).toEqual(Buffer.from([0xfe, 0xff, 0, 0x7b, 0, 0x7d]));
  });

  it('does not take a BOM for a syntax error in either format', () => {
    const json = decodeConfig(Buffer.from('\ufeff{ "mcpServers": {} }', 'utf8'));
    const toml = decodeConfig(Buffer.from('\ufeff[mcp_servers.x]\ncommand = "x"\n', 'utf8'));
    if ('problem' in json || 'problem' in toml) throw new Error('did not decode');
    expect(json.encoding).toBe('utf8-bom');
    const location = (format: 'json' | 'toml') =>
      ({ target: 'cursor', path: 'x', format, scope: 'user', maps: [['mcpServers']] }) as const;
    expect(editorFor(location('json')).read(json.text).problem).toBeUndefined();
    expect(editorFor({ ...location('toml'), maps: [['mcp_servers']] }).read(toml.text)).toMatchObject({
      slots: [{ name: 'x' }],
    });
  });
});
