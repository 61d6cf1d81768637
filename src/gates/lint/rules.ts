/**
 * The lint rules: a stable id each (users switch them with `--rule ID=off|info|warn|error` or the `lint` section of
 * tapedeck.config.json), the level a finding of it has unless told otherwise, and one sentence of what it finds.
 */

/** How loud a finding is; `off` switches a rule off. */
export type LintLevel = 'off' | 'info' | 'warn' | 'error';

/** A finding's level (a rule switched off finds nothing). */
export type FindingLevel = Exclude<LintLevel, 'off'>;

export const LINT_LEVELS: readonly LintLevel[] = ['off', 'info', 'warn', 'error'];

export interface LintRule {
  id: string;
  level: FindingLevel;
  description: string;
  help: string;
}

const rule = (id: string, level: FindingLevel, description: string, help: string): LintRule => ({
  id,
  level,
  description,
  help,
});

/** Every rule, in the order a report lists them. */
export const LINT_RULES: readonly LintRule[] = [
  rule(
    'jsonrpc/invalid',
    'error',
    'A message that is not a JSON-RPC 2.0 request, notification or response.',
    'Send objects with "jsonrpc": "2.0" and either "method" or "result"/"error".',
  ),
  rule(
    'jsonrpc/unknown-id',
    'error',
    'A response whose id matches no request sent the other way.',
    'Answer only requests you received, with their id unchanged.',
  ),
  rule(
    'jsonrpc/duplicate-response',
    'error',
    'A request answered more than once.',
    'Send exactly one response per request.',
  ),
  rule(
    'jsonrpc/unanswered',
    'warn',
    'A request still unanswered when the trace ends.',
    'Answer every request, with an error if need be; a long-lived listen request is exempt.',
  ),
  rule(
    'jsonrpc/id-reused',
    'error',
    'A request id used again while a request with that id is still in flight.',
    'Give each request in flight an id of its own.',
  ),
  rule(
    'jsonrpc/batch',
    'error',
    'A JSON-RPC batch in a protocol version that does not allow batches (every version but 2025-03-26).',
    'Send messages one by one.',
  ),
  rule(
    'schema/message',
    'error',
    "A message that does not match its method's schema for the negotiated protocol version.",
    "Fix the message's shape; the finding names the path that failed.",
  ),
  rule(
    'tools/input-schema',
    'error',
    "A tools/call whose arguments do not match the tool's inputSchema.",
    'Call the tool with the arguments its inputSchema asks for.',
  ),
  rule(
    'tools/output-schema',
    'error',
    "A tool result whose structuredContent is missing or does not match the tool's outputSchema (results with isError are skipped).",
    'Return structuredContent that matches the outputSchema the tool declares.',
  ),
  rule(
    'tools/unlisted',
    'warn',
    'A tools/call of a tool that the tools/list answers of the session never offered.',
    'Call only tools the server lists, or list the tool.',
  ),
  rule(
    'tools/bad-schema',
    'warn',
    'A tool schema that cannot be used: not valid JSON Schema, a remote $ref, nested too deep.',
    'Give the tool a self-contained JSON Schema (2020-12 by default).',
  ),
  rule(
    'capabilities/client',
    'error',
    'A server request or notification that needs a client capability the client did not declare (sampling, roots, elicitation).',
    'Send it only when the client declared the capability.',
  ),
  rule(
    'capabilities/server',
    'warn',
    'A server feature used (tools, prompts, resources, logging, list-changed or update notifications) that the server did not declare.',
    'Declare the capability in the initialize or server/discover answer.',
  ),
  rule(
    'http/routing-header',
    'error',
    'A Mcp-Method, Mcp-Name or Mcp-Param-* header missing or disagreeing with the request body (2026-07-28; Mcp-Param-* as the x-mcp-header annotations of the tool name them).',
    'Send routing headers that repeat what the body says.',
  ),
  rule(
    'deprecated/feature',
    'info',
    'A feature the 2026-07-28 version deprecates: roots, sampling, logging, the legacy SSE transport.',
    'Move to the replacement the specification names.',
  ),
  rule(
    'stdio/non-json',
    'warn',
    "A line on the server's stdout that is not a JSON-RPC message (stdout is the protocol channel).",
    'Write logs to stderr.',
  ),
  rule(
    'recorder/lost',
    'warn',
    'Lines the recorder could not keep (truncated or dropped): the lint saw less than was said.',
    'Record again with more room; the trace is incomplete.',
  ),
  rule(
    'auth/challenge-without-www-authenticate',
    'error',
    'A 401 answer without a WWW-Authenticate header, so a client cannot tell how to authenticate.',
    'Answer 401 with a Bearer challenge naming resource_metadata.',
  ),
  rule(
    'auth/resource-mismatch',
    'error',
    'Protected-resource metadata naming a resource other than the URL it was fetched for (RFC 9728 §3.3).',
    'Name the URL the metadata is for as its resource.',
  ),
  rule(
    'auth/audience-mismatch',
    'error',
    "A token refused because it was issued for another resource (the token's audience).",
    "Ask for tokens with the server's own URL as resource; a proxy must map the resource parameter back.",
  ),
  rule(
    'auth/insufficient-scope',
    'error',
    'A call refused with insufficient_scope.',
    'Ask for (and grant) the scope the server names in its challenge.',
  ),
  rule(
    'auth/scope-not-granted',
    'warn',
    'An authorization server that granted fewer scopes than the client asked for.',
    'Grant the scopes asked for, or ask only for those the client may have.',
  ),
];

const BY_ID = new Map(LINT_RULES.map((r) => [r.id, r]));

/** The rule of an id, or undefined. @example lintRule('jsonrpc/batch')?.level // → 'error' */
export function lintRule(id: string): LintRule | undefined {
  return BY_ID.get(id);
}
