import { failureOf, isAuthEvent } from './auth-flow.js';
import type { EventLine, HttpLine, TraceLine } from './types.js';

/**
 * Lint rules for the OAuth side of a trace, as pure functions over its lines: a 401 that does not say how to
 * authenticate, protected-resource metadata naming another resource than the URL it was asked for, a token refused
 * for its audience, and scopes asked for but not granted (or refused as insufficient). Each finding names its rule
 * by a stable id (so it can be switched off), the line it is about and what to change.
 */

export type AuthLintSeverity = 'error' | 'warning';

/** One finding. */
export interface AuthFinding {
  rule: AuthRuleId;
  /** The 1-based line number of the line it is about. */
  line: number;
  message: string;
  severity: AuthLintSeverity;
}

/** The rule ids, stable. */
export type AuthRuleId =
  | 'auth/challenge-without-www-authenticate'
  | 'auth/resource-mismatch'
  | 'auth/audience-mismatch'
  | 'auth/scope-not-granted'
  | 'auth/insufficient-scope';

/** Every rule, with its severity and what it checks (for a rule listing). */
export const AUTH_RULES: Readonly<Record<AuthRuleId, { severity: AuthLintSeverity; description: string }>> = {
  'auth/challenge-without-www-authenticate': {
    severity: 'error',
    description:
      'a 401 answer carries no WWW-Authenticate header, so a client cannot tell how to authenticate',
  },
  'auth/resource-mismatch': {
    severity: 'error',
    description:
      'protected-resource metadata names a resource other than the URL it was fetched for (RFC 9728 §3.3)',
  },
  'auth/audience-mismatch': {
    severity: 'error',
    description:
      "the server refused a token because it was issued for another resource (the token's audience)",
  },
  'auth/scope-not-granted': {
    severity: 'warning',
    description: 'the authorization server granted fewer scopes than the client asked for',
  },
  'auth/insufficient-scope': {
    severity: 'error',
    description: 'the server refused a call with insufficient_scope',
  },
};

const WELL_KNOWN_PRM = '/.well-known/oauth-protected-resource';

/**
 * The auth rules over a stream of lines: feed every line with its number, then read the findings.
 *
 * @example const lint = new AuthLinter(); for (const [i, line] of lines.entries()) lint.push(line, i + 1); lint.findings
 */
export class AuthLinter {
  readonly findings: AuthFinding[] = [];
  /** The URL of each HTTP exchange's request, by stream. */
  private readonly urls = new Map<string, string>();
  /** The scope the latest authorization request asked for (a code's token request names none of its own). */
  private authorized: string | undefined;

  push(line: TraceLine, lineNo: number): void {
    if (line.type === 'http') this.http(line, lineNo);
    else if (isAuthEvent(line)) this.event(line, lineNo);
  }

  private add(rule: AuthRuleId, line: number, message: string): void {
    this.findings.push({ rule, line, message, severity: AUTH_RULES[rule].severity });
  }

  private http(line: HttpLine, lineNo: number): void {
    if (line.dir === 'in') {
      if (line.stream !== undefined && line.url !== undefined) this.urls.set(line.stream, line.url);
      return;
    }
    if (line.status !== 401 || line.producedBy !== undefined) return;
    if (header(line, 'www-authenticate') === undefined) {
      const url = line.stream === undefined ? undefined : this.urls.get(line.stream);
      this.add(
        'auth/challenge-without-www-authenticate',
        lineNo,
        `401 without WWW-Authenticate${url === undefined ? '' : ` for ${url}`}: answer with a Bearer challenge naming resource_metadata so clients can discover how to authenticate`,
      );
    }
  }

  private event(line: EventLine, lineNo: number): void {
    if (line.step === 'resource-metadata') this.resource(line, lineNo);
    if (line.step === 'authorize') this.authorized = field(field(line.request, 'scope'));
    if (line.step === 'token' || line.step === 'refresh') this.scopes(line, lineNo);
    if (line.ok !== false) return;
    const failure = failureOf(line);
    if (failure.kind === 'wrong-audience') {
      this.add(
        'auth/audience-mismatch',
        lineNo,
        `the server refused the token for its audience (${failure.reason}): the token's resource must be the server's own URL; a proxy must map the resource parameter back`,
      );
    } else if (failure.kind === 'missing-scope') {
      this.add('auth/insufficient-scope', lineNo, `the server refused the call: ${failure.reason}`);
    }
  }

  private resource(line: EventLine, lineNo: number): void {
    const stated = field(field(line.resource, 'upstream'));
    const url = typeof line.stream === 'string' ? this.urls.get(line.stream) : undefined;
    if (stated === undefined || url === undefined) return;
    const expected = resourceForMetadataUrl(url);
    if (expected === undefined || trim(expected) === trim(stated)) return;
    this.add(
      'auth/resource-mismatch',
      lineNo,
      `protected-resource metadata fetched for ${expected} names resource ${stated}: clients refuse it; the resource must be the URL the metadata is for`,
    );
  }

  private scopes(line: EventLine, lineNo: number): void {
    const asked =
      field(field(line.request, 'scope')) ?? (line.step === 'token' ? this.authorized : undefined);
    const granted = field(field(line.response, 'scope'));
    if (asked === undefined || granted === undefined) return;
    const have = new Set(granted.split(/\s+/));
    const missing = asked.split(/\s+/).filter((scope) => scope !== '' && !have.has(scope));
    if (missing.length === 0) return;
    this.add(
      'auth/scope-not-granted',
      lineNo,
      `asked for scope "${asked}", granted "${granted}": ${missing.join(' ')} not granted; calls that need it will be refused`,
    );
  }
}

/**
 * The auth findings of a whole trace (its lines from the first).
 *
 * @example lintAuth(lines).map((f) => `${f.line}: ${f.rule} ${f.message}`)
 */
export function lintAuth(lines: Iterable<TraceLine>): AuthFinding[] {
  const lint = new AuthLinter();
  let lineNo = 0;
  for (const line of lines) lint.push(line, ++lineNo);
  return lint.findings;
}

/**
 * The resource a protected-resource metadata URL is for: the well-known part taken out of its path (RFC 9728 §3.1).
 *
 * @example resourceForMetadataUrl('https://h/.well-known/oauth-protected-resource/mcp') // 'https://h/mcp'
 */
export function resourceForMetadataUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!parsed.pathname.startsWith(WELL_KNOWN_PRM)) return undefined;
  const rest = parsed.pathname.slice(WELL_KNOWN_PRM.length);
  return `${parsed.origin}${rest === '' ? '' : rest}`;
}

function header(line: HttpLine, name: string): string | undefined {
  const value = line.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A field of an object value, or the value itself when no name is given, as a string. */
function field(value: unknown, name?: string): string | undefined {
  if (name === undefined) return typeof value === 'string' ? value : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  return (value as Record<string, unknown>)[name] as string | undefined;
}

function trim(url: string): string {
  return url.replace(/\/$/, '');
}
