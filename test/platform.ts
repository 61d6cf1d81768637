/**
 * What the test suite knows about platforms other than Linux, in one place. Windows runs are not yet observed from
 * this repository (see docs/platforms.md); the lists below come from reading the tests, each with its reason.
 */

/**
 * Test files that assert what only POSIX systems have. vitest.config.ts leaves them out on Windows and says so.
 * The behaviour they cover on Windows is what src/process decides (tested everywhere in test/process) or has no
 * Windows counterpart (file modes).
 */
export const POSIX_ONLY: Readonly<Record<string, string>> = {
  'test/cli/redact.test.ts': 'asserts 0600 file modes, which NTFS does not have',
  'test/collector/crash.test.ts': 'asserts 0700/0600 modes of the collector home',
  'test/collector/file-links.test.ts':
    'plants symbolic links, which Windows allows only with developer mode or as admin',
  'test/cli/record-live.test.ts': 'stops a recorder with SIGTERM and expects its graceful end',
  'test/collector/viewer.test.ts':
    'makes a symlink, which Windows allows only with developer mode or as admin',
  'test/e2e/conformance/server-scenarios.test.ts':
    'stops a recorder with SIGTERM and expects its graceful end',
  'test/e2e/era2026.test.ts': 'expects a recorder stopped with SIGTERM to write its end line',
  'test/e2e/faults.test.ts': 'writes to /dev/full and kills with POSIX signals',
  'test/e2e/lifecycle.test.ts': 'POSIX signals, 128+n exit codes, sh servers and chmod',
  'test/e2e/peers-everything.test.ts': 'asserts 0600 trace file modes',
  'test/e2e/peers-filesystem.test.ts': 'asserts 0700/0600 folder and trace modes',
  'test/e2e/redaction.test.ts': 'asserts 0600/0700 modes of the key and its folder',
  'test/e2e/replay-cli.test.ts': 'expects replay to report on SIGTERM',
  'test/e2e/replay-inspector.test.ts': 'runs its server through /bin/sh',
  'test/e2e/run-modes.test.ts': 'asserts 0600 cassette modes',
  'test/e2e/verify-changed.test.ts': 'asserts 0600 cassette modes',
  'test/install/read-only.test.ts':
    'tells a read-only config by its 0444 mode bits and plants symbolic links',
  'test/install/roundtrip.test.ts': 'asserts 0600 config modes and puts sh scripts on PATH as the servers',
  'test/install/units.test.ts': 'tells executable from non-executable files by their mode bits',
  'test/instrument/files.test.ts': 'asserts 0700/0600 modes of trace folders and files',
  'test/mcp/symlinks.test.ts':
    'plants symbolic links, which Windows allows only with developer mode or as admin',
  'test/mcp/tools.test.ts': 'asserts 0600/0700 modes of recordings',
  'test/proxy/http/cli.test.ts': 'expects the proxy to close its trace on SIGTERM',
  'test/replay/serve/http/era2026-http.test.ts': 'expects replay --http to report on SIGTERM',
  'test/replay/serve/http/everything-http.test.ts': 'expects replay --http to report on SIGTERM and SIGINT',
  'test/replay/serve/http/http-cassette.test.ts': 'expects replay --http to report on SIGTERM',
  'test/cli/in-place-links.test.ts':
    'plants symbolic links, which Windows allows only with developer mode or as admin',
  'test/view/server.test.ts': 'makes a symlink, which Windows allows only with developer mode or as admin',
  'test/live/run.test.ts': 'asserts 0600 cassette modes',
  'test/capture/record-transport.test.ts': 'asserts 0600 trace modes',
  'test/live/use-cassette.test.ts': 'asserts 0600 cassette modes and POSIX paths',
  'test/cli/convert.test.ts': 'asserts 0600/0700 output modes',
  'test/trace/export/har.test.ts': 'asserts 0600 output modes',
  'test/sink/file-links.test.ts':
    'plants symbolic links, which Windows allows only with developer mode or as admin',
  'test/sink/file.test.ts': 'asserts 0600/0700 modes and writes to /dev/full',
  'test/viewer/report.test.ts': 'asserts 0600 report modes',
  'test/viewer/view-command.test.ts':
    'puts an sh script on PATH as xdg-open and stops the server with SIGINT',
  'test/loop/auto-probe.test.ts':
    'the v2 client stops its probe with SIGTERM, which the recorder and exit-log.mjs pass on as POSIX signals',
  'test/loop/example.test.ts':
    'installs tapedeck into the copy with directory symlinks, which Windows allows only with developer mode or as admin',
  'test/loop/instrument-stdio.test.ts': 'kills a server with SIGTERM and asserts 0600 trace modes',
  'test/sink/cassette-file.test.ts': 'asserts 0600 modes and sets file times on the probe stash',
};
