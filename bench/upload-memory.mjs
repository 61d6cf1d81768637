#!/usr/bin/env node
// The collector's memory under concurrent large uploads, measured by hand (not part of `npm run bench`: the case
// it guards against once took several GB).
//
//   node bench/upload-memory.mjs [uploads=3] [MB per upload=500] [MB per line=0 (one line)] [dist=./dist]
//
// Starts a collector from the built dist in a process of its own, sends the uploads at once (each a meta line, a
// message of the given size — or lines of the given size — and an end line, streamed, never held by this script),
// samples the collector's RSS every 50 ms, and prints the RSS at start, the peak (VmHWM), at the end and 5 s later,
// with each upload's status.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const TOKEN = 'ab'.repeat(32);

if (process.argv[2] === '--child') {
  const { startCollector } = await import(pathToFileURL(join(process.argv[3], 'collector', 'index.js')).href);
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-upload-memory-'));
  const collector = await startCollector({ dbPath: join(dir, 'db', 't.db'), token: TOKEN, port: 0 });
  process.stdout.write(`${collector.url} ${dir}\n`);
} else {
  const [uploads = '3', mb = '500', lineMb = '0', dist = 'dist'] = process.argv.slice(2);
  const child = spawn(process.execPath, [process.argv[1], '--child', resolve(dist)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [url, dir] = String(await new Promise((done) => child.stdout.once('data', done)))
    .trim()
    .split(' ');
  const memory = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]);
    return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
  };
  const atStart = memory();
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: Number(uploads) }, () => upload(url, Number(mb) * 1e6, Number(lineMb) * 1e6)),
  );
  const atEnd = memory();
  await new Promise((done) => setTimeout(done, 5000));
  const settled = memory();
  console.log(
    JSON.stringify(
      {
        uploads: Number(uploads),
        mbEach: Number(mb),
        lineMb: Number(lineMb) || 'one line',
        rssStartMB: atStart.rss,
        rssPeakMB: settled.peak,
        rssEndMB: atEnd.rss,
        rssAfter5sMB: settled.rss,
        seconds: (Date.now() - started) / 1000,
        statuses: results,
      },
      null,
      2,
    ),
  );
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}

/** One upload of `bytes` of message data: one line, or lines of `lineBytes` each. Resolves to its status. */
function upload(url, bytes, lineBytes) {
  return new Promise((done) => {
    const req = request(`${url}/api/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode));
    });
    // A collector that refuses a line answers at once and closes; the rest of the body has nowhere to go.
    req.on('error', (err) => done(err.code ?? err.message));
    const line = (seq, size) =>
      `{"t":"2026-01-01T00:00:00.001Z","seq":${seq},"dir":"in","raw":{"jsonrpc":"2.0","id":${seq},"method":"tools/call","params":{"name":"x","arguments":{"blob":"${'a'.repeat(size)}"}}}}\n`;
    req.write('{"v":1,"type":"meta","startedAt":"2026-01-01T00:00:00.000Z","label":"upload-memory"}\n');
    const end = '{"t":"2026-01-01T00:00:01.000Z","type":"end","durationMs":1000,"reason":"process_exit"}\n';
    if (lineBytes > 0) {
      const lines = Math.max(1, Math.round(bytes / lineBytes));
      const text = line(1, lineBytes);
      let sent = 0;
      const more = () => {
        while (sent < lines) {
          sent += 1;
          if (!req.write(text.replace('"seq":1,', `"seq":${sent},`))) return void req.once('drain', more);
        }
        req.end(end);
      };
      more();
      return;
    }
    const [head, tail] = line(1, 0).split('""');
    req.write(`${head}"`);
    const chunk = Buffer.alloc(1 << 20, 'a');
    let sent = 0;
    const more = () => {
      while (sent < bytes) {
        const part = sent + chunk.length > bytes ? chunk.subarray(0, bytes - sent) : chunk;
        sent += part.length;
        if (!req.write(part)) return void req.once('drain', more);
      }
      req.end(`"${tail}${end}`);
    };
    more();
  });
}
