import { AuthLinter } from '../../trace/auth-lint.js';
import { classifyItem, type RpcId, type RpcItem } from '../../trace/jsonrpc.js';
import type { Direction, HttpLine, Json, MessageLine, TraceLine } from '../../trace/types.js';
import {
  checkClientCapability,
  checkDeprecated,
  checkInputRequests,
  checkServerFeature,
  checkServerNotification,
} from './capability-rules.js';
import type { LineRef, RuleContext } from './context.js';
import type { LintFinding, RawFinding } from './finding.js';
import { SchemaCompiler } from './json-schema.js';
import { checkBatch, checkMessageSchema, checkRequest, checkResponse, unanswered } from './protocol-rules.js';
import { type Era, type EraSchemas, eraSchemas } from './protocol-schemas.js';
import { checkRoutingHeaders } from './routing-headers.js';
import { LINT_RULES, type LintLevel } from './rules.js';
import { LintSession, MODERN_VERSION } from './session.js';
import { checkToolCall, checkToolResult, learnTools } from './tool-rules.js';

/** Levels by rule id, overriding each rule's own. */
export type RuleLevels = Readonly<Record<string, LintLevel>>;

/**
 * Lints a trace as it is read: push each line with its file and line number, then `finish()` for what only the end
 * can tell (requests never answered). Memory grows with the requests in flight and the tools listed, not with the
 * trace. Sessions are told apart by server and connection (on HTTP by the `Mcp-Session-Id` of the connection).
 *
 * @example
 * const linter = new Linter({ 'stdio/non-json': 'off' });
 * for (const { line, file, lineNo } of lines) await linter.push(line, file, lineNo);
 * const findings = linter.finish();
 */
export class Linter {
  private readonly levels = new Map<string, LintLevel>();
  private readonly findings: LintFinding[] = [];
  private readonly sessions = new Map<string, LintSession>();
  private readonly compiler = new SchemaCompiler();
  private readonly schemas = new Map<Era, EraSchemas>();
  /** The Mcp-Session-Id each HTTP connection carried, and the headers of its last request. */
  private readonly connSession = new Map<string, string>();
  private readonly connHeaders = new Map<string, HttpLine['headers']>();
  /** The headers of each HTTP stream's request: a stateless-era message names its minted session, not the stream's
   * connection, so its headers are found by stream. */
  private readonly streamHeaders = new Map<string, HttpLine['headers']>();
  /** The client requests each HTTP stream carried, until its response status is seen. */
  private readonly streamRequests = new Map<string, { session: LintSession; ids: RpcId[] }>();
  /** The OAuth rules, fed the HTTP exchanges and the proxy's oauth events. */
  private readonly auth = new AuthLinter();
  private transport: string | undefined;
  private lost = { truncated: 0, dropped: 0, first: undefined as LineRef | undefined };

  constructor(levels: RuleLevels = {}) {
    for (const rule of LINT_RULES) this.levels.set(rule.id, levels[rule.id] ?? rule.level);
  }

  /** Reads one line; returns a promise only while loading an era's schemas (await it when given). */
  push(line: TraceLine, file: string, lineNo: number): Promise<void> | undefined {
    const at = { file, line: lineNo };
    switch (line.type) {
      case 'meta':
        this.transport = line.transport;
        return undefined;
      case 'http':
        this.noteHttp(line);
        this.pushAuth(line, at);
        return undefined;
      case 'text':
        if (line.dir === 'out')
          this.add(at, undefined, {
            rule: 'stdio/non-json',
            message: `the server wrote a line that is not JSON on stdout: ${preview(line.text)}`,
          });
        return undefined;
      case 'event':
        if (line.name === 'truncated' || line.name === 'dropped')
          this.noteLost(line.name as 'truncated' | 'dropped', at, line.count);
        else this.pushAuth(line, at);
        return undefined;
      case undefined:
        return this.message(line as MessageLine, at);
      default:
        return undefined;
    }
  }

  /** The findings, with what only the end of the trace tells. */
  finish(): LintFinding[] {
    for (const session of this.sessions.values()) {
      const ctx = this.context(session, { file: '', line: 0 });
      unanswered(ctx, (pending, message) =>
        this.add({ file: pending.file, line: pending.line }, session.name, {
          rule: 'jsonrpc/unanswered',
          message,
        }),
      );
      if (this.transport === 'sse' && session.version !== undefined && session.version >= MODERN_VERSION)
        this.add({ file: '', line: 0 }, session.name, {
          rule: 'deprecated/feature',
          message: `the session speaks ${session.version} over the legacy SSE transport, which that version deprecates`,
        });
    }
    const { truncated, dropped, first } = this.lost;
    if (first !== undefined)
      this.add(first, undefined, {
        rule: 'recorder/lost',
        message: `the recorder could not keep ${truncated} truncated and ${dropped} dropped line(s): lint saw less than was said`,
      });
    return this.findings.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  }

  private message(line: MessageLine, at: LineRef): Promise<void> | undefined {
    const session = this.sessionOf(line);
    const raw = line.raw;
    const items = Array.isArray(raw) ? raw.map((r: Json) => classifyItem(r)) : [classifyItem(raw)];
    // The version and era are known from the first request on (initialize, or a 2026-era `_meta`).
    for (const item of items)
      if (line.dir === 'in' && item.kind === 'request') session.learnFromRequest(item.method, item.params);
    const era = session.era;
    if (!this.schemas.has(era))
      return eraSchemas(era).then((schemas) => {
        this.schemas.set(era, schemas);
        this.items(session, line, items, at);
      });
    this.items(session, line, items, at);
    return undefined;
  }

  private items(session: LintSession, line: MessageLine, items: RpcItem[], at: LineRef): void {
    const ctx = this.context(session, at);
    if (Array.isArray(line.raw)) checkBatch(ctx, line.dir, items.length);
    for (const item of items) this.item(ctx, line, item);
  }

  private item(ctx: RuleContext, line: MessageLine, item: RpcItem): void {
    const dir: Direction = line.dir;
    checkDeprecated(ctx, item);
    if (item.kind === 'invalid') {
      ctx.report({ rule: 'jsonrpc/invalid', message: `not a JSON-RPC message: ${item.reason}` });
      return;
    }
    if (item.kind === 'request') {
      checkRequest(ctx, dir, item);
      if (dir === 'in' && line.stream !== undefined)
        this.noteStreamRequest(line.stream, ctx.session, item.id);
      if (dir === 'out') checkClientCapability(ctx, item.method);
      if (dir === 'in' && item.method === 'tools/call') checkToolCall(ctx, item);
      if (dir === 'in') this.checkHeaders(ctx, line, item);
      return;
    }
    if (item.kind === 'notification') {
      checkMessageSchema(ctx, dir, item.method, item);
      if (dir === 'out') checkServerNotification(ctx, item.method);
      if (dir === 'in') this.checkHeaders(ctx, line, item);
      return;
    }
    const pending = checkResponse(ctx, dir, item);
    if (pending === undefined || item.error !== undefined || dir !== 'out') return;
    checkServerFeature(ctx, pending.method);
    checkInputRequests(ctx, item.result);
    if (pending.method === 'tools/list') learnTools(ctx, item.result);
    if (pending.method === 'tools/call') checkToolResult(ctx, pending, item.result);
  }

  /** 2026-era routing headers against the body of the request they came with. */
  private checkHeaders(ctx: RuleContext, line: MessageLine, item: RpcItem): void {
    const version = ctx.session.version;
    if (version === undefined || version < MODERN_VERSION) return;
    const headers =
      (line.stream === undefined ? undefined : this.streamHeaders.get(line.stream)) ??
      (line.conn === undefined ? undefined : this.connHeaders.get(line.conn));
    if (headers === undefined) return;
    const tool =
      item.kind === 'request' && item.method === 'tools/call' && typeof item.params?.name === 'string'
        ? ctx.session.tools.get(item.params.name)
        : undefined;
    checkRoutingHeaders(ctx, headers, item, tool?.headers);
  }

  private noteStreamRequest(stream: string, session: LintSession, id: RpcId): void {
    const entry = this.streamRequests.get(stream);
    if (entry === undefined) this.streamRequests.set(stream, { session, ids: [id] });
    else entry.ids.push(id);
  }

  /**
   * An HTTP error status on a stream refuses the requests it carried: no JSON-RPC answer is owed for them, and the
   * client may send them again with the same id (the Streamable HTTP transport answers a missing token with a 401).
   */
  private noteStatus(stream: string, status: number | undefined): void {
    const entry = this.streamRequests.get(stream);
    if (entry === undefined) return;
    this.streamRequests.delete(stream);
    if (status === undefined || status < 400) return;
    for (const id of entry.ids) {
      const pending = entry.session.inFlight.in.get(id);
      if (pending !== undefined) pending.refusedWith = status;
    }
  }

  private noteHttp(line: HttpLine): void {
    const id = headerValue(line.headers, 'mcp-session-id');
    if (id !== undefined) this.connSession.set(line.conn, id);
    if (line.dir === 'out' && line.stream !== undefined) {
      this.noteStatus(line.stream, line.status);
      this.streamHeaders.delete(line.stream);
    }
    if (line.dir === 'in') {
      const headers = Object.fromEntries(Object.entries(line.headers).map(([k, v]) => [k.toLowerCase(), v]));
      this.connHeaders.set(line.conn, headers);
      if (line.stream !== undefined) this.streamHeaders.set(line.stream, headers);
    }
  }

  /** The auth rules number lines within a file; the finding takes the file of the line that caused it. */
  private pushAuth(line: TraceLine, at: LineRef): void {
    const before = this.auth.findings.length;
    this.auth.push(line, at.line);
    for (const finding of this.auth.findings.slice(before))
      this.add({ file: at.file, line: finding.line }, undefined, {
        rule: finding.rule,
        message: finding.message,
      });
  }

  private noteLost(name: 'truncated' | 'dropped', at: LineRef, count: unknown): void {
    this.lost[name] += typeof count === 'number' ? count : 1;
    this.lost.first ??= at;
  }

  private sessionOf(line: MessageLine): LintSession {
    const server = typeof line.server === 'string' ? line.server : '';
    const http = this.transport === 'http' || this.transport === 'sse';
    // On HTTP a message's conn is the request's connection (its session from the Mcp-Session-Id it carried), or, in
    // the stateless era, the session key the recorder minted — never a connection a request came in on.
    const conn =
      line.conn === undefined
        ? ''
        : http
          ? (this.connSession.get(line.conn) ?? (this.connHeaders.has(line.conn) ? '' : line.conn))
          : line.conn;
    const key = `${server}\u0000${conn}`;
    let session = this.sessions.get(key);
    if (session === undefined) {
      const name = [server, conn].filter((part) => part !== '').join(' ');
      session = new LintSession(name === '' ? undefined : name);
      this.sessions.set(key, session);
    }
    return session;
  }

  private context(session: LintSession, at: LineRef): RuleContext {
    return {
      session,
      at,
      compiler: this.compiler,
      schemas: this.schemas.get(session.era),
      report: (finding) => this.add(at, session.name, finding),
    };
  }

  private add(
    at: LineRef,
    session: string | undefined,
    finding: Omit<RawFinding, 'file' | 'line' | 'session'>,
  ): void {
    const level = this.levels.get(finding.rule) ?? 'error';
    if (level === 'off') return;
    this.findings.push({
      ...finding,
      level,
      file: at.file,
      line: at.line,
      ...(session === undefined ? {} : { session }),
    });
  }
}

function headerValue(headers: HttpLine['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  return undefined;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
