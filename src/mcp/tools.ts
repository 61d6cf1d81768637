import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { JsonObject } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import {
  listTrajectories,
  message,
  PAGE_DEFAULTS,
  searchTrajectories,
  trajectoryPage,
  trajectoryStats,
} from './browse.js';
import { diffTrajectories } from './diff.js';
import type { TrajectoryCache } from './loaded.js';
import { lookupResponse } from './lookup.js';
import { checkName } from './names.js';
import type { TrajectoryRecorder } from './recorder.js';
import type { TrajectoryStore } from './store.js';

/**
 * The tools of `tapedeck mcp`. The first five have shack-session-replay's names, arguments and answers, so agents
 * and prompts written for it work unchanged; the rest read trajectories the way the tapedeck CLI does.
 */

/**
 * What the tools work on; one per server process, shared by every connected session. Made by
 * createTrajectoryService and handed on as it is: its parts are tapedeck's own.
 */
export interface TrajectoryService {
  /** @internal */
  store: TrajectoryStore;
  /** @internal */
  recorder: TrajectoryRecorder;
  /** @internal */
  cache: TrajectoryCache;
  log: (message: string) => void;
}

const jsonObject = () => z.record(z.string(), z.unknown());

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** Runs a handler; any failure becomes a tool result with `isError` and the message, never a protocol error. */
async function guarded(work: () => Promise<CallToolResult> | CallToolResult): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    return { content: [{ type: 'text', text: message(err) }], isError: true };
  }
}

/**
 * Registers every tool on `server`.
 *
 * @example registerTrajectoryTools(new McpServer({ name: 'tapedeck', version }), service);
 */
export function registerTrajectoryTools(server: McpServer, service: TrajectoryService): void {
  registerRecordingTools(server, service.recorder);
  registerReadingTools(server, service);
}

/** The tools that write: start a trajectory, add a pair to it, save it. */
function registerRecordingTools(server: McpServer, recorder: TrajectoryRecorder): void {
  server.registerTool(
    'start_recording',
    {
      description:
        'Begin a named recording session (a trajectory). Fails if another recording is active. Starting the ' +
        'name of a recording that was interrupted (server restart) continues it; a finished one is started over.',
      inputSchema: {
        name: z.string().describe('trajectory name, e.g. my_session (no / \\ .. or leading dot)'),
      },
    },
    ({ name }) =>
      guarded(() => {
        const { resumed } = recorder.start(checkName(name));
        return text(
          resumed === undefined
            ? `Recording started: ${name}`
            : `Recording started: ${name} (continuing its ${resumed} earlier event(s))`,
        );
      }),
  );

  server.registerTool(
    'record_event',
    {
      description:
        'Append a request/response pair to the active recording. The pair is on disk before this returns.',
      inputSchema: {
        request: jsonObject().describe('the outgoing request: {method, params} (an id is ignored)'),
        response: jsonObject().describe('the live response, e.g. {result: …} or {error: …}'),
      },
    },
    ({ request, response }) =>
      guarded(() => {
        const total = recorder.record(request as JsonObject, response as Json);
        return text(`Event recorded (total in session: ${total})`);
      }),
  );

  server.registerTool(
    'stop_recording',
    { description: 'Save the active recording session and close it.', inputSchema: {} },
    () =>
      guarded(() => {
        const { name, events, path } = recorder.stop();
        return text(`Recording '${name}' saved with ${events} event(s) at ${path}`);
      }),
  );
}

/** The tools that read trajectories: lookup, list, page, search, diff and stats. */
function registerReadingTools(server: McpServer, service: TrajectoryService): void {
  const { store, recorder, cache } = service;
  const load = (name: string, what?: string) => cache.load(store.locate(name, what));

  server.registerTool(
    'replay_lookup',
    {
      description:
        'Return the recorded response for a request: matched on method + params with the id left out (and ' +
        'progress tokens, trace context and client info, as tapedeck replay matches). Answers JSON ' +
        '{"matched":true,"response":…,"recorded_at":…} or {"matched":false}.',
      inputSchema: {
        trajectory: z.string().describe('trajectory name'),
        request: jsonObject().describe('the request to look up: {method, params}'),
        occurrence: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('which recording of an identical request, 1-based (default 1)'),
        ignore: z
          .array(z.string())
          .optional()
          .describe('JSONPaths to leave out of matching, e.g. $.params.arguments.timestamp'),
      },
      annotations: READ_ONLY,
    },
    ({ trajectory, request, occurrence, ignore }) =>
      guarded(async () => {
        const loaded = await load(trajectory);
        const result = await lookupResponse(
          loaded,
          { request: request as JsonObject, occurrence, ignore },
          service.log,
        );
        return text(JSON.stringify(result));
      }),
  );

  server.registerTool(
    'list_trajectories',
    {
      description: 'List the trajectories in the data folder with their event counts.',
      inputSchema: {},
      annotations: READ_ONLY,
    },
    () =>
      guarded(async () => {
        const trajectories = await listTrajectories(store, cache, recorder.activeName());
        return text(JSON.stringify({ dir: store.dir, trajectories }));
      }),
  );

  server.registerTool(
    'get_trajectory',
    {
      description: 'Read a trajectory page by page: each event with its request, response, time and latency.',
      inputSchema: {
        name: z.string().describe('trajectory name'),
        offset: z.number().int().min(0).optional().describe('events to skip (default 0)'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(PAGE_DEFAULTS.maxLimit)
          .optional()
          .describe(`events to return (default ${PAGE_DEFAULTS.limit})`),
      },
      annotations: READ_ONLY,
    },
    ({ name, offset, limit }) =>
      guarded(async () => text(JSON.stringify(trajectoryPage(await load(name), offset, limit)))),
  );

  server.registerTool(
    'search_trajectories',
    {
      description:
        'Find events across all trajectories whose tool name, method, request or response contains the text ' +
        '(case-insensitive).',
      inputSchema: { query: z.string().describe('a tool name or any text, e.g. search or "rate limit"') },
      annotations: READ_ONLY,
    },
    ({ query }) => guarded(async () => text(JSON.stringify(await searchTrajectories(store, cache, query)))),
  );

  server.registerTool(
    'diff_trajectories',
    {
      description:
        'Compare two trajectories as tapedeck diff does: requests lined up by method and params, answers ' +
        'compared; lists the requests that changed (with JSON paths), were added or were removed.',
      inputSchema: {
        a: z.string().describe('first trajectory'),
        b: z.string().describe('second trajectory'),
      },
      annotations: READ_ONLY,
    },
    ({ a, b }) =>
      guarded(async () => text(JSON.stringify(diffTrajectories(await load(a, 'a'), await load(b, 'b'))))),
  );

  server.registerTool(
    'trajectory_stats',
    {
      description:
        'Statistics of a trajectory: per method and per tool calls, errors and latency percentiles (as tapedeck stats --json).',
      inputSchema: { name: z.string().describe('trajectory name') },
      annotations: READ_ONLY,
    },
    ({ name }) => guarded(async () => text(JSON.stringify(await trajectoryStats(await load(name))))),
  );
}
