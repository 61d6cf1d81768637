/**
 * Which vitest project runs each test file (vitest.config.ts reads this): `unit` — in process, no child processes,
 * no browser, every core, seconds; `e2e` — real processes and real peers, two at a time; `browser` — the viewer
 * in Chromium. A test file is unit unless listed here. The unit project's guard (test/setup/no-processes.ts) fails
 * any unit test that starts a process, naming this file.
 */

/** Folders whose every test file runs real processes: cross-module end-to-end suites and the fixture loop. */
export const E2E_FOLDERS: readonly string[] = ['test/e2e/**', 'test/loop/**'];

/**
 * Test files elsewhere that start processes, each with what it starts — or, where a test is bound by real I/O
 * volume rather than a process, what it moves and why nothing smaller would do.
 */
export const E2E_FILES: Readonly<Record<string, string>> = {
  'test/package.test.ts': 'npm pack, tar, tsc and the installed binary',
  'test/process/spawn.test.ts': 'real processes through spawnServer and its tree stop',
  'test/cli/commands.test.ts': 'the built CLI, to see which modules a command loads',
  'test/cli/early-spawn.test.ts': "record's early server start, with real servers",
  'test/cli/last.test.ts': 'the built CLI recording real servers',
  'test/cli/record-inputs.test.ts': 'the built CLI',
  'test/proxy/oauth/cli-oauth.test.ts': 'the built CLI in front of an OAuth-protected server',
  'test/proxy/oauth/mcp-remote.test.ts': 'mcp-remote, signed in through the proxy',
  'test/cli/record-live.test.ts': 'the built CLI recording real servers with --live',
  'test/collector/crash.test.ts': '`tapedeck serve` as a process, killed with SIGKILL',
  'test/collector/postgres-restart.test.ts':
    "a Postgres cluster of the test's own, stopped and started with pg_ctl",
  'test/collector/team-kill.test.ts':
    'two `tapedeck serve` processes on one Postgres database, one killed with SIGKILL',
  'test/collector/live-slow-viewer.test.ts':
    "25 MB through SQLite and a paused loopback websocket: only that fills the kernel's socket buffers",
  'test/install/wrapped-starts.test.ts': 'the built `tapedeck install` and the entries it writes, started',
  'test/instrument/delivery.test.ts': 'a process that exits with an instrumented server still delivering',
  'test/instrument/transports.test.ts': 'an instrumented stdio server as a process',
  'test/cli/verify-cli.test.ts': 'the configurable fixture server as a process',
  'test/live/verify.test.ts': 'the configurable fixture server as a process',
  'test/mcp/http-inspector.test.ts': 'the MCP Inspector CLI and `tapedeck mcp`',
  'test/mcp/resume.test.ts': '`tapedeck mcp` processes, one killed',
  'test/mcp/shack-usage.test.ts': '`tapedeck mcp` with JSON-RPC lines piped in',
  'test/mcp/symlinks.test.ts': '`tapedeck mcp` over stdio',
  'test/mcp/tools.test.ts': '`tapedeck mcp` over stdio',
  'test/proxy/bridge/bridge-everything.test.ts': 'server-everything, the bridge and the Inspector CLI',
  'test/proxy/bridge/upstream-cli.test.ts': 'server-everything and the built CLI',
  'test/proxy/bridge/bridge-oauth.test.ts': 'the built CLI as an OAuth client of a protected SDK server',
  'test/proxy/http/cli.test.ts': 'the built CLI, stopped with SIGTERM',
  'test/proxy/http/everything-sse.test.ts': 'server-everything in sse mode',
  'test/proxy/http/faults.test.ts': 'server-everything over Streamable HTTP, with faults injected',
  'test/proxy/http/everything-streamable.test.ts': 'server-everything over Streamable HTTP',
  'test/proxy/http/inspector.test.ts': 'server-everything and the Inspector CLI',
  'test/proxy/http/resumption.test.ts': 'server-everything, which keeps an event store',
  'test/live/use-cassette.test.ts': 'server-everything, recorded once',
  'test/live/use-cassette-faults.test.ts': 'server-everything, recorded with faults',
  'test/replay/serve/http/era2026-http.test.ts': 'the v2 server and the built CLI',
  'test/replay/serve/http/everything-http.test.ts': 'server-everything and the built CLI',
  'test/replay/serve/http/http-cassette.test.ts': 'the built CLI',
  'test/viewer/view-command.test.ts': 'the built `tapedeck view`',
  'test/sink/collector-exit.test.ts': 'the built collector sink in a process with nothing else to wait for',
};

/**
 * The viewer driven in Debian's Chromium (test/viewer/browser.ts). Without Chromium they skip, saying so, unless
 * TAPEDECK_REQUIRE_BROWSER=1 (CI) makes that a failure.
 */
export const BROWSER_FILES: readonly string[] = [
  'test/viewer/viewer.test.ts',
  'test/viewer/features.test.ts',
  'test/viewer/paged.test.ts',
  'test/viewer/collector.test.ts',
  'test/viewer/report.test.ts',
  'test/viewer/debugging.test.ts',
  'test/viewer/navigation.test.ts',
  'test/viewer/narrow.test.ts',
  'test/viewer/live-follow.test.ts',
  'test/viewer/close.test.ts',
  'test/viewer/agent.test.ts',
  'test/viewer/auth-lane.test.ts',
  'test/viewer/hooks.test.ts',
  'test/viewer/million.test.ts',
];
