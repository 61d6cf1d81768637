/**
 * The CI workflow stays what docs/platforms.md says it is: npm test on Linux, macOS and Windows with Node 20 (the oldest
 * package.json's engines allows), 22 and 24, from a clean install, with the files checked out as committed and no
 * browser downloaded. And the list of POSIX-only test files left out on Windows names files that exist, each with
 * a reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/peers.js';
import { POSIX_ONLY } from '../platform.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  shell?: string;
  with?: Record<string, unknown>;
}
interface Job {
  'runs-on': string;
  'timeout-minutes'?: number;
  strategy: { 'fail-fast': boolean; matrix: { os: string[]; node: string[] } };
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}

const PATH = join(REPO_ROOT, '.github', 'workflows', 'test.yml');
const workflow = parse(readFileSync(PATH, 'utf8')) as Workflow;
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  engines: { node: string };
};

describe('the CI workflow', () => {
  const job = workflow.jobs.test!;
  const steps = job.steps;
  const index = (test: (step: Step) => boolean) => steps.findIndex(test);

  it('runs on every push and pull request, reading the repository only', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(workflow.permissions).toEqual({ contents: 'read' });
  });

  it('tests on Linux, macOS and Windows with Node 20, 22 and 24, each pair reported on its own', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
    expect(job['runs-on']).toBe('${{ matrix.os }}');
    expect(job.strategy.matrix.os).toEqual(['ubuntu-latest', 'macos-latest', 'windows-latest']);
    expect(job.strategy.matrix.node).toEqual(['20', '22', '24']);
    // The oldest Node in the matrix is the oldest one package.json promises to run on.
    expect(pkg.engines.node).toBe(`>=${job.strategy.matrix.node[0]}`);
    expect(job.strategy['fail-fast']).toBe(false);
    expect(job['timeout-minutes']).toBeGreaterThan(0);
  });

  it('checks out with line ends as committed, then installs clean and runs npm test', () => {
    const crlf = index((s) => s.run === 'git config --global core.autocrlf false');
    const checkout = index((s) => s.uses?.startsWith('actions/checkout@') === true);
    const node = index((s) => s.uses?.startsWith('actions/setup-node@') === true);
    const install = index((s) => s.run === 'npm ci');
    const test = index((s) => s.run === 'npm test');
    expect(crlf).toBeGreaterThanOrEqual(0);
    // In this order, each once.
    const order = [crlf, checkout, node, install, test];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(5);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
    expect(steps[node]!.with).toMatchObject({ 'node-version': '${{ matrix.node }}', cache: 'npm' });
    expect(steps.at(-1)!.run).toBe('npm test');
    // npm test is the whole check: lint, typecheck, build and vitest.
    expect(pkg.scripts.test).toBe(
      'npm run lint && npm run typecheck && npm run build --silent && vitest run',
    );
  });

  it('never downloads a browser, and points the Linux viewer tests at the runner’s own Chromium', () => {
    const text = readFileSync(PATH, 'utf8');
    expect(text).not.toMatch(/playwright install|npx playwright/);
    const browser = steps.find((s) => s.run?.includes('TAPEDECK_CHROMIUM') === true)!;
    expect(browser.if).toBe("runner.os == 'Linux'");
    expect(browser.shell).toBe('bash');
    expect(browser.run).toContain('TAPEDECK_REQUIRE_BROWSER=1');
  });

  it('runs only npm scripts that exist', () => {
    for (const step of steps) {
      for (const match of (step.run ?? '').matchAll(/npm run ([\w:-]+)/g))
        expect(Object.keys(pkg.scripts)).toContain(match[1]);
    }
  });
});

describe('the POSIX-only test files left out on Windows', () => {
  it('names files that exist, each with a reason', () => {
    const files = Object.keys(POSIX_ONLY);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(existsSync(join(REPO_ROOT, file)), file).toBe(true);
      expect(file).toMatch(/^test\/.*\.test\.ts$/);
      expect(POSIX_ONLY[file]!.length).toBeGreaterThan(10);
    }
    // The platform layer itself is never left out: its tests are what Windows runs are for.
    expect(files.filter((file) => file.startsWith('test/process/'))).toEqual([]);
  });
});
