import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordTransport } from '../../src/capture/record-transport.js';
import { startLlmProxy } from '../../src/llm/proxy.js';
import { compile } from '../../src/redact/compile.js';
import { redactorOf } from '../../src/redact/engine.js';
import { FileSink } from '../../src/sink/file.js';
import { newMeta } from '../../src/trace/meta.js';
import { useCliHarness } from '../helpers/cli.js';
import { TAPEDECK_BIN } from '../helpers/peers.js';
import { runAgent, scriptedModel, weatherServer } from '../llm/agent.js';
import { startFakeProvider } from '../llm/fake-provider.js';
import {
  blockOutside,
  collectErrors,
  launchBrowser,
  loaded,
  NO_BROWSER,
  SCREENSHOTS,
  shown,
} from './browser.js';

/** The Agent view: an LLM trace opened beside the MCP trace of the same run, drawn as a tree of model turns. */

const API_KEY = 'sk-ant-viewer-secret-0123456789abcdef';

/** Records the small agent's run: its model calls through the recording proxy, its MCP session around the client. */
async function recordRun(dir: string): Promise<{ mcp: string; llm: string }> {
  const provider = await startFakeProvider(scriptedModel);
  const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
  const llm = join(dir, 'llm.jsonl');
  const mcp = join(dir, 'mcp.jsonl');
  const sink = new FileSink({ path: llm, redact: redactorOf(compiled) });
  const proxy = await startLlmProxy({
    upstream: new URL(provider.url),
    sink,
    meta: { ...newMeta({ label: 'llm', transport: 'http' }), kind: 'llm' },
    compiled,
    port: 0,
  });
  try {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await weatherServer().connect(serverSide);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    const transport = recordTransport(clientSide, { file: mcp, server: 'weather', redact: 'defaults' });
    await client.connect(transport);
    const model = new Anthropic({ apiKey: API_KEY, baseURL: proxy.url, maxRetries: 0 });
    const answer = await runAgent(model, client, 'Weather and time in Paris and Oslo?', { stream: true });
    expect(answer).toBe('Summary: Paris: 18°C; Paris: 11:00; Oslo: 10:00; Oslo: 5°C');
    await client.close();
    await transport.closed;
  } finally {
    await proxy.close(0);
    await sink.close({ reason: 'producer_shutdown' });
    await provider.close();
  }
  return { mcp, llm };
}

/** Checks the tree the Agent view draws for the recorded run, and that its MCP links lead to the timeline. */
async function checkTree(page: Page): Promise<void> {
  await page.locator('.tabs button[data-view="agent"]').click();
  const tree = page.locator('.agent');
  await tree.waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, 'agent.png') });
  expect(await shown(page.locator('.agent-summary'))).toBe(
    '3 model turns, 4 tool calls asked for, 4 linked to MCP calls',
  );
  const turns = page.locator('.agent-turn');
  expect(await turns.count()).toBe(3);
  const first = await shown(turns.nth(0));
  expect(first).toMatch(
    /model #1\s*anthropic\.messages\s*claude-test-1\s*streamed\s*in \d+ · out \d+ tokens/,
  );
  expect(first).toContain('tool_use');
  expect(first).toContain('Checking Paris.');
  // Each tool call under its turn, the MCP call that carried it out under the tool call.
  const tools = turns.nth(1).locator('.agent-tool');
  expect(await tools.count()).toBe(2);
  expect(await shown(tools.nth(0).locator('.agent-head'))).toMatch(/^clock\s+\{"city":"Oslo"\}$/);
  expect(await shown(tools.nth(0).locator('.agent-mcp'))).toMatch(
    /tools\/call clock #\d+\s+weather\s[\s\S]*\bok\s+by name and arguments$/,
  );
  expect(await shown(tools.nth(1).locator('.agent-head'))).toMatch(/^weather\s+\{"city":"Oslo"\}$/);
  // Per-turn latency is drawn as a bar; the last turn ends the run.
  expect(await turns.nth(2).locator('.agent-bar').count()).toBe(1);
  expect(await shown(turns.nth(2))).toContain('end_turn');
  // The handshake and the listing no model call claimed keep rows of their own, before the first turn.
  const own = page.locator('.agent-tree > li.agent-mcp');
  expect(await own.count()).toBe(2);
  expect(await shown(own.nth(0))).toMatch(/^\+\S+ ms\s*initialize #0/);
  // An MCP call opens on the timeline, selected.
  await tools.nth(1).locator('button.agent-call').click();
  await page.waitForFunction("location.hash.startsWith('#/timeline?sel=')");
  expect(await shown(page.locator('.detail'))).toContain('weather');
}

/** Starts the built `tapedeck view`; resolves with the URL it prints. */
function startView(args: string[]): Promise<string> {
  const started = spawn(process.execPath, [TAPEDECK_BIN, 'view', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(started);
  return new Promise<string>((resolve, reject) => {
    let text = '';
    started.stdout!.on('data', (chunk: Buffer) => {
      text += String(chunk);
      const found = /(http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/#\/timeline)/.exec(text)?.[1];
      if (found) resolve(found);
    });
    started.on('exit', (code) => reject(new Error(`view exited ${code}: ${text}`)));
  });
}

const running: ChildProcess[] = [];

describe.skipIf(NO_BROWSER !== undefined)(`the Agent view ${NO_BROWSER ?? ''}`, () => {
  const io = useCliHarness('tapedeck-agent-view-');
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    for (const started of running.splice(0)) started.kill('SIGKILL');
  });

  it('report --llm embeds the model calls, redacted, and draws them as a tree linked to the MCP calls', async () => {
    const { mcp, llm } = await recordRun(io.dir);
    const out = join(io.dir, 'run.html');
    expect(await io.run(['report', mcp, '--llm', llm, '-o', out])).toBe(0);
    expect(io.stdout).toContain('(2 traces');
    expect(readFileSync(out, 'utf8')).not.toContain(API_KEY);
    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    const refused = await blockOutside(page);
    const errors = collectErrors(page);
    await page.goto(`${pathToFileURL(out).href}#/timeline`);
    await loaded(page);
    await checkTree(page);
    expect({ refused, errors }).toEqual({ refused: [], errors: [] });
    await page.close();
  });

  it("report --llm redacts the model calls by the report's own rules too", async () => {
    const { mcp, llm } = await recordRun(io.dir);
    const out = join(io.dir, 'redacted.html');
    expect(readFileSync(llm, 'utf8')).toContain('Checking Paris.');
    expect(await io.run(['report', mcp, '--llm', llm, '-o', out, '--redact', 'Checking Paris'])).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).not.toContain('Checking Paris');
    expect(html).toContain('[REDACTED');
  });

  it('view --llm serves the LLM trace beside the MCP trace; added later, it brings the Agent tab', async () => {
    const { mcp, llm } = await recordRun(io.dir);
    const withLlm = await startView([mcp, '--llm', llm, '--no-open']);
    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    const errors = collectErrors(page);
    await page.goto(withLlm);
    await loaded(page);
    expect(await page.locator('.top .source').count()).toBe(2);
    await checkTree(page);
    expect(errors).toEqual([]);
    await page.close();

    // The MCP trace alone: nothing to draw, so no tab, until the LLM trace is opened beside it.
    const alone = await startView([mcp, '--no-open']);
    const plain = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    await plain.goto(alone);
    await loaded(plain);
    expect(await plain.locator('.tabs button[data-view="calls"]').count()).toBe(1);
    expect(await plain.locator('.tabs button[data-view="agent"]').count()).toBe(0);
    await plain.setInputFiles('input[aria-label="add trace files"]', llm);
    await plain.locator('.top .source >> nth=1').waitFor();
    await checkTree(plain);
    await plain.close();
  });
});
