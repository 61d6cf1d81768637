/**
 * The types of the calls users write most, checked where users meet them: against the official SDK's own types
 * (Client, Transport, McpServer, Server) and through the entry points users import. These assertions are checked
 * by the type checker (`npm run typecheck`, part of `npm test`); each `@ts-expect-error` line is a misuse that must
 * keep failing to compile. The run-time test of each only makes sure the names are really exported.
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as main from '../../src/index.js';
import {
  type Cassette,
  type CassetteSession,
  instrument,
  type OpenedTrace,
  openTrace,
  type Recorder,
  type ReplayReport,
  type ReplayTransport,
  replayTransport,
  type TraceEntry,
  type UseCassetteOptions,
  useCassette,
} from '../../src/index.js';
import { createRecorder, httpMiddleware, type InstrumentOptions } from '../../src/instrument/index.js';
import { type Spawn, verifyCassette } from '../../src/live/index.js';
import { type RecordingTransport, recordTransport } from '../../src/live/replay-entry.js';
import type { EndLine, RecordLine, TraceFormat } from '../../src/trace/index.js';
import * as io from '../../src/trace/io-entry.js';

describe('useCassette', () => {
  it('takes a name and options with the server command, and gives a session with a connected SDK Client', () => {
    expect(main.useCassette).toBeTypeOf('function');
    expectTypeOf(useCassette).parameters.toEqualTypeOf<[name: string, options: UseCassetteOptions]>();
    expectTypeOf(useCassette).returns.resolves.toEqualTypeOf<CassetteSession>();
    expectTypeOf<CassetteSession['client']>().toEqualTypeOf<Client>();
    expectTypeOf<CassetteSession['mode']>().toEqualTypeOf<'record' | 'replay' | 'passthrough'>();
    expectTypeOf<CassetteSession['path']>().toEqualTypeOf<string>();
    expectTypeOf<CassetteSession['close']>().returns.toEqualTypeOf<Promise<void>>();
    // undefined when the session was recorded rather than replayed
    expectTypeOf<CassetteSession['report']>().returns.toEqualTypeOf<ReplayReport | undefined>();
  });

  it('accepts what docs/replay.md shows: a command, import.meta.url, a mode, replay knobs, a Client of your own', () => {
    expectTypeOf(useCassette).toBeCallableWith('everything', {
      command: ['node', 'server.js', 'stdio'],
      from: import.meta.url,
    });
    expectTypeOf(useCassette).toBeCallableWith('everything', {
      command: ['node', 'server.js'],
      from: new URL(import.meta.url),
      mode: 'replay',
      replay: { match: 'ordered', ignore: ['$.params.arguments.timestamp'], repeat: 'last' },
    });
    expectTypeOf<UseCassetteOptions['client']>().toEqualTypeOf<Client | undefined>();
    expectTypeOf<UseCassetteOptions['mode']>().toEqualTypeOf<
      'auto' | 'record' | 'replay' | 'passthrough' | undefined
    >();
    // @ts-expect-error the server command is required: a first run records, and recording needs the server
    expectTypeOf(useCassette).toBeCallableWith('everything', { from: import.meta.url });
    // @ts-expect-error 'update' is a mode of `tapedeck run`, not of useCassette
    expectTypeOf(useCassette).toBeCallableWith('everything', { command: ['node'], mode: 'update' });
  });
});

describe('replayTransport', () => {
  it('takes a cassette path or a loaded cassette and gives a Transport an SDK Client connects to', () => {
    expect(main.replayTransport).toBeTypeOf('function');
    expectTypeOf(replayTransport).parameter(0).toEqualTypeOf<string | Cassette>();
    expectTypeOf(replayTransport).returns.toEqualTypeOf<ReplayTransport>();
    expectTypeOf<ReplayTransport>().toExtend<Transport>();
    expectTypeOf<Client['connect']>().toBeCallableWith({} as ReplayTransport);
    expectTypeOf<ReplayTransport['report']>().returns.toEqualTypeOf<ReplayReport>();
    expectTypeOf<ReplayReport['unused']>().items.toHaveProperty('method');
  });

  it('takes the replay knobs, checked as the CLI checks its flags', () => {
    expectTypeOf(replayTransport).toBeCallableWith('fixtures/session.jsonl');
    expectTypeOf(replayTransport).toBeCallableWith('fixtures/session.jsonl', {
      match: 'keyed',
      repeat: 'last',
      timing: 2,
      ignore: ['$.params.arguments.timestamp'],
      onEvent: () => {},
    });
    // @ts-expect-error match is 'keyed' or 'ordered'
    expectTypeOf(replayTransport).toBeCallableWith('fixtures/session.jsonl', { match: 'fuzzy' });
    // @ts-expect-error timing is 'none', 'recorded' or a speed factor
    expectTypeOf(replayTransport).toBeCallableWith('fixtures/session.jsonl', { timing: 'fast' });
  });

  it('pairs with recordTransport, which wraps any SDK Transport and is one itself', () => {
    expectTypeOf(recordTransport).toBeCallableWith({} as StdioClientTransport, {
      file: 'fixtures/session.jsonl',
    });
    expectTypeOf(recordTransport).returns.toEqualTypeOf<RecordingTransport>();
    expectTypeOf<RecordingTransport>().toExtend<Transport>();
    // @ts-expect-error a recording needs somewhere to go
    expectTypeOf(recordTransport).toBeCallableWith({} as StdioClientTransport);
  });
});

describe('verifyCassette', () => {
  it("starts a command's server with the spawn it is given: node's own, named as Spawn", () => {
    // Node's spawn is typed by overloads, none of them this exact shape; at run time it is what Spawn describes.
    expectTypeOf(spawn).not.toExtend<Spawn>();
    expectTypeOf(verifyCassette).toBeCallableWith({} as Cassette, {
      spawn: spawn as Spawn,
      command: 'node',
      args: ['server.js'],
    });
    expectTypeOf(verifyCassette).toBeCallableWith({} as Cassette, {
      upstream: { url: 'http://127.0.0.1:3001/mcp' },
    });
  });
});

describe('openTrace', () => {
  it('opens a path, with options, as a trace of any importable format whose lines stream', () => {
    expect(io.openTrace).toBe(main.openTrace);
    expectTypeOf(openTrace).toBeCallableWith('traces/session.jsonl');
    expectTypeOf(openTrace).toBeCallableWith('traces/session.har', { mode: 'strict', format: 'har' });
    expectTypeOf(openTrace).returns.resolves.toEqualTypeOf<OpenedTrace>();
    expectTypeOf<OpenedTrace['format']>().toEqualTypeOf<TraceFormat>();
    expectTypeOf<TraceFormat>().toEqualTypeOf<
      'tapedeck' | 'mcp-tape' | 'mcporter' | 'shack' | 'http-exchanges' | 'har'
    >();
    expectTypeOf<ReturnType<OpenedTrace['lines']>>().toEqualTypeOf<AsyncIterable<TraceEntry>>();
    expectTypeOf<TraceEntry['line']>().toEqualTypeOf<RecordLine | EndLine>();
    // @ts-expect-error the reading mode is 'lenient' or 'strict'
    expectTypeOf(openTrace).toBeCallableWith('traces/session.jsonl', { mode: 'loose' });
  });
});

describe('instrument', () => {
  it('records an SDK 1.x server, high-level or low-level, and gives the recorder back', () => {
    expect(main.instrument).toBeTypeOf('function');
    expectTypeOf(instrument).toBeCallableWith({} as McpServer);
    expectTypeOf(instrument).toBeCallableWith({} as Server);
    expectTypeOf(instrument).toBeCallableWith({} as McpServer, { to: { type: 'files', dir: './traces' } });
    expectTypeOf(instrument).toBeCallableWith({} as McpServer, createRecorder());
    expectTypeOf(instrument).returns.toEqualTypeOf<Recorder>();
    // a recorder's own instrument() hands the same server back, so `.connect(transport)` can follow
    const again = (recorder: Recorder, server: McpServer) => recorder.instrument(server);
    expectTypeOf(again).returns.toEqualTypeOf<McpServer>();
    expectTypeOf<Recorder['shutdown']>().returns.toEqualTypeOf<Promise<void>>();
  });

  it('sends events to a collector, files, OpenTelemetry or a sink of your own', () => {
    expectTypeOf<InstrumentOptions>().toHaveProperty('to');
    expectTypeOf(createRecorder).toBeCallableWith({
      to: [
        { type: 'collector', url: 'http://127.0.0.1:7420', token: 'token' },
        { type: 'otlp', url: 'http://127.0.0.1:4318' },
      ],
      getUser: (ctx) => (ctx.authInfo ? { id: ctx.authInfo.clientId } : undefined),
      release: 'abc123',
    });
    // @ts-expect-error an unknown destination type
    expectTypeOf(createRecorder).toBeCallableWith({ to: { type: 'kafka', url: 'x' } });
    // @ts-expect-error a plain object is no server to instrument
    expectTypeOf(instrument).toBeCallableWith({ name: 'not a server' });
  });

  it('gives a middleware that node:http and Express call as (req, res, next)', () => {
    const middleware = httpMiddleware();
    expectTypeOf(middleware).toBeCallableWith({} as IncomingMessage, {} as ServerResponse, () => {});
    expectTypeOf(middleware).returns.toEqualTypeOf<Promise<void>>();
  });
});
