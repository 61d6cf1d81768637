import { describe, expect, it } from 'vitest';
import { deriveLabel, safeLabel, traceFileName } from '../../src/sink/naming.js';
import { segmentPath, suffixedPath } from '../../src/sink/paths.js';

describe('deriveLabel', () => {
  it.each([
    [['npx', '-y', '@modelcontextprotocol/server-everything'], 'server-everything'],
    [['npx', '-y', '@scope/pkg@1.2.3'], 'pkg'],
    [['npx', '-y', 'mcp-server-git'], 'mcp-server-git'],
    [['npx', '-p', '@scope/pkg', 'srv-bin'], 'srv-bin'],
    [['node', 'node_modules/@scope/server-x/dist/index.js'], 'server-x'],
    [['node', '/srv/app/node_modules/plainpkg/build/index.js'], 'plainpkg'],
    [['node', '/home/u/projects/weather-mcp/dist/index.js'], 'weather-mcp'],
    [['uvx', 'mcp-server-fetch'], 'mcp-server-fetch'],
    [['uvx', '--from', 'git+https://example.com/x.git', 'mcp-server-x'], 'mcp-server-x'],
    [['uv', 'run', 'mcp-server-time'], 'mcp-server-time'],
    [['python', '-m', 'mcp_server_time'], 'mcp_server_time'],
    [['python3', '-m', 'pkg'], 'pkg'],
    [['node', '-e', 'setInterval(() => {}, 1000)'], 'node-inline'],
    [['python3', '-c', 'import sys; print(1)'], 'python3-inline'],
    [['python', '-u', 'weather_server.py'], 'weather_server'],
    [['docker', 'run', '-i', '--rm', 'mcp/fetch'], 'fetch'],
    [
      ['docker', 'run', '-i', '--rm', '-e', 'GITHUB_TOKEN', 'ghcr.io/github/github-mcp-server'],
      'github-mcp-server',
    ],
    [['docker', 'run', '-i', '--rm', '-v', '/data:/data', '--name', 'mem', 'mcp/memory:latest'], 'memory'],
    [['env', 'API_KEY=1', 'node', 'weather.js'], 'weather'],
    [['/usr/local/bin/my-server'], 'my-server'],
    [['/opt/weather/server.py'], 'weather'],
  ])('%j → %s', (argv, label) => {
    expect(deriveLabel(argv)).toBe(label);
  });

  it('always gives a file-name-safe, non-empty label', () => {
    for (const argv of [[], ['npx'], ['bash', '-c', 'echo "hi there" > /dev/null'], ['./weird name!.sh']]) {
      const label = deriveLabel(argv);
      expect(label).toMatch(/^[A-Za-z0-9._-]+$/);
      expect(label).not.toBe('');
    }
    expect(deriveLabel([])).toBe('session');
  });
});

describe('safeLabel', () => {
  it('squeezes unsafe characters to dashes, trims dots and dashes, caps the length', () => {
    expect(safeLabel('my server/v2:beta')).toBe('my-server-v2-beta');
    expect(safeLabel('../../etc/passwd')).toBe('etc-passwd');
    expect(safeLabel('...')).toBe('session');
    expect(safeLabel('x'.repeat(100))).toHaveLength(48);
  });
});

describe('traceFileName and segmentPath', () => {
  it('names a trace <UTC stamp>-<label>.jsonl in the folder', () => {
    expect(traceFileName('/t', 'memory', new Date('2026-11-29T21:33:15.123Z'))).toBe(
      '/t/20261129T213315.123Z-memory.jsonl',
    );
    expect(traceFileName('/t', 'a/b', new Date('2026-11-29T21:33:15.123Z'))).toBe(
      '/t/20261129T213315.123Z-a-b.jsonl',
    );
  });

  it('numbers older segments name.1.jsonl, name.2.jsonl … and keeps segment 0 the plain name', () => {
    expect(segmentPath('/t/run.jsonl', 0)).toBe('/t/run.jsonl');
    expect(segmentPath('/t/run.jsonl', 1)).toBe('/t/run.1.jsonl');
    expect(segmentPath('/t/20261129T213315.123Z-mem.jsonl', 2)).toBe('/t/20261129T213315.123Z-mem.2.jsonl');
    expect(segmentPath('/t/trace', 3)).toBe('/t/trace.3');
  });

  it('never gives a name the shape of a rotated segment: a label ending in .<n> ends in -<n>', () => {
    const at = new Date('2026-11-29T21:33:15.123Z');
    expect(traceFileName('/t', 'server-v1.2', at)).toBe('/t/20261129T213315.123Z-server-v1-2.jsonl');
    expect(traceFileName('/t', 'x.10', at)).not.toBe(segmentPath(traceFileName('/t', 'x', at), 10));
    expect(traceFileName('/t', 'mcp.example.com', at)).toBe('/t/20261129T213315.123Z-mcp.example.com.jsonl');
  });

  it('suffixes a taken name with -<n>, which no segment name looks like', () => {
    expect(suffixedPath('/t/run.jsonl', 2)).toBe('/t/run-2.jsonl');
    expect(suffixedPath('/t/trace', 3)).toBe('/t/trace-3');
    expect(suffixedPath('/t/run.jsonl', 2)).not.toBe(segmentPath('/t/run.jsonl', 2));
  });
});
