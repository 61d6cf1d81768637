import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserOpener } from '../../src/cli/commands/view.js';
import { TAPEDECK_BIN } from '../helpers/peers.js';
import { MCP_TAPE } from './traces.js';

/** `tapedeck view` as a user runs it: the built binary, its URL, its token, its Host and Origin checks. */

function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method,
        headers,
        setHost: headers.host === undefined,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(parts).toString('utf8'),
            headers: res.headers,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Starts `tapedeck view`, resolves with the URL it prints. */
function startView(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [TAPEDECK_BIN, 'view', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk);
      const url = /(http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/#\/timeline)/.exec(out)?.[1];
      if (url) resolve({ child, url });
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += String(chunk);
    });
    child.on('exit', (code) => reject(new Error(`view exited ${code} before printing a URL: ${out}${err}`)));
  });
}

describe('tapedeck view', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-view-'));
  });
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the viewer and the files under a token on 127.0.0.1, refuses everything else, stops on Ctrl-C', async () => {
    const started = await startView([MCP_TAPE, '--no-open']);
    child = started.child;
    const page = new URL(started.url);
    const [, token] = page.pathname.split('/');
    const html = await get(started.url);
    expect(html.status).toBe(200);
    expect(html.body).toContain(
      '<script type="application/json" id="tapedeck-config">{"mode":"files","api":"api/"}</script>',
    );
    expect(html.headers['content-security-policy']).toContain("default-src 'self'");
    expect(html.headers['referrer-policy']).toBe('no-referrer');

    const list = JSON.parse((await get(`${page.origin}/${token}/api/files`)).body) as {
      files: { path: string; size: number; url: string }[];
    };
    expect(list.files).toEqual([
      { path: 'd0/everything-stdio.jsonl', size: readFileSync(MCP_TAPE).length, url: 'api/files/0' },
    ]);
    expect((await get(`${page.origin}/${token}/api/files/0`)).body).toBe(readFileSync(MCP_TAPE, 'utf8'));

    // No token, a wrong token, a foreign Host (DNS rebinding), a foreign Origin, a write: all refused.
    expect((await get(`${page.origin}/`)).status).toBe(403);
    expect((await get(`${page.origin}/api/files/0`)).status).toBe(403);
    expect((await get(`${page.origin}/${'0'.repeat(32)}/api/files/0`)).status).toBe(403);
    expect(
      (await get(`${page.origin}/${token}/api/files/0`, { host: `evil.example:${page.port}` })).status,
    ).toBe(403);
    expect((await get(`${page.origin}/${token}/api/files/0`, { origin: 'http://evil.example' })).status).toBe(
      403,
    );
    expect((await get(`${page.origin}/${token}/api/files/0`, { origin: page.origin })).status).toBe(200);
    expect((await get(`${page.origin}/${token}/api/files`, {}, 'POST')).status).toBe(405);
    // Paths that try to leave the viewer's folder find nothing.
    expect((await get(`${page.origin}/${token}/assets/../../package.json`)).status).toBe(403);
    expect((await get(`${page.origin}/${token}/assets/..%2f..%2fpackage.json`)).status).toBe(404);

    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('opens the URL with the system opener unless --no-open', async () => {
    const bin = join(dir, 'bin');
    const log = join(dir, 'opened.txt');
    spawnSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${JSON.stringify(log)}\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    expect(browserOpener('linux', { PATH: bin, DISPLAY: ':0' })?.command).toBe(join(bin, 'xdg-open'));
    expect(browserOpener('linux', { PATH: join(dir, 'nothing-here'), DISPLAY: ':0' })).toBeUndefined();
    // No display: xdg-open would start a text browser in the terminal, so nothing is opened.
    expect(browserOpener('linux', { PATH: bin })).toBeUndefined();

    const started = await startView([MCP_TAPE], {
      ...process.env,
      DISPLAY: ':0',
      PATH: `${bin}:${process.env.PATH}`,
    });
    child = started.child;
    for (let i = 0; i < 100; i++) {
      try {
        if (readFileSync(log, 'utf8').trim() === started.url) break;
      } catch {
        // Not written yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(readFileSync(log, 'utf8').trim()).toBe(started.url);
  });

  it('names a missing or unreadable trace in one line and exits 2', () => {
    const notTrace = join(dir, 'notes.txt');
    writeFileSync(notTrace, 'hello\n');
    for (const [path, message] of [
      [join(dir, 'missing.jsonl'), `tapedeck: no such trace file: ${join(dir, 'missing.jsonl')}\n`],
      [notTrace, `tapedeck: ${notTrace} is in no format tapedeck reads`],
    ] as const) {
      const result = spawnSync(process.execPath, [TAPEDECK_BIN, 'view', path, '--no-open'], {
        encoding: 'utf8',
      });
      expect(result.status).toBe(2);
      expect(result.stderr.startsWith(message)).toBe(true);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
    }
  });
});
