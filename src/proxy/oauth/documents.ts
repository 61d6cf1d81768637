import type { OAuthMounts } from './mounts.js';

/**
 * The OAuth documents an upstream serves, rewritten to name the proxy: protected-resource metadata (RFC 9728) names
 * the proxy's URL as the resource and the proxy's mount of each authorization server; authorization-server metadata
 * (RFC 8414) names the proxy's mount of every endpoint, so registration, authorization and token requests pass the
 * proxy, which maps the `resource` parameter back (RFC 8707).
 */

/** What an endpoint of an authorization server is for. */
export type EndpointKind = 'authorize' | 'token' | 'register' | 'revoke' | 'other';

/** The endpoint fields of authorization-server metadata, and what each is for. */
const ENDPOINTS: Readonly<Record<string, EndpointKind>> = {
  authorization_endpoint: 'authorize',
  token_endpoint: 'token',
  registration_endpoint: 'register',
  revocation_endpoint: 'revoke',
  introspection_endpoint: 'other',
  device_authorization_endpoint: 'other',
  pushed_authorization_request_endpoint: 'other',
  userinfo_endpoint: 'other',
};

/** A way of binding tokens to the client that no proxy at another URL can take part in. */
export type TokenBinding = 'DPoP' | 'mutual TLS';

/** A rewritten document, and what the rewrite found. */
export interface RewrittenResource {
  doc: Record<string, unknown>;
  /** The resource as the upstream named it, and as the proxy names it. */
  resource?: { upstream: string; proxy: string };
  /** Set when the upstream binds its tokens in a way no proxy can honour: the document is then left unchanged. */
  binding?: TokenBinding;
}

/** Protected-resource metadata with the proxy named as the resource and the authorization servers' mounts. */
export function rewriteResourceMetadata(
  doc: Record<string, unknown>,
  mounts: OAuthMounts,
  proxyOrigin: string,
): RewrittenResource {
  const binding = tokenBinding(doc);
  if (binding !== undefined) return { doc, binding };
  const out: Record<string, unknown> = { ...doc };
  let resource: RewrittenResource['resource'];
  if (typeof doc.resource === 'string') {
    const proxy = mounts.proxyResource(doc.resource, proxyOrigin);
    out.resource = proxy;
    resource = { upstream: doc.resource, proxy };
  }
  if (Array.isArray(doc.authorization_servers)) {
    out.authorization_servers = doc.authorization_servers.map((server) =>
      typeof server === 'string' ? mounts.toProxy(server, proxyOrigin) : server,
    );
  }
  return resource === undefined ? { doc: out } : { doc: out, resource };
}

/** How a protected resource says it binds tokens (RFC 9449 §5.2, RFC 8705 §3.4), if it does. */
function tokenBinding(doc: Record<string, unknown>): TokenBinding | undefined {
  if (doc.dpop_bound_access_tokens_required === true) return 'DPoP';
  if (doc.tls_client_certificate_bound_access_tokens === true) return 'mutual TLS';
  return undefined;
}

/**
 * Authorization-server metadata with its issuer and endpoints at their mounts; `learn` is told of each endpoint's
 * proxy path and kind.
 */
export function rewriteServerMetadata(
  doc: Record<string, unknown>,
  mounts: OAuthMounts,
  proxyOrigin: string,
  learn: (path: string, kind: EndpointKind) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc };
  if (typeof doc.issuer === 'string') out.issuer = mounts.toProxy(doc.issuer, proxyOrigin);
  for (const [field, kind] of Object.entries(ENDPOINTS)) {
    const value = doc[field];
    if (typeof value !== 'string') continue;
    const proxied = mounts.toProxy(value, proxyOrigin);
    out[field] = proxied;
    if (proxied !== value) learn(new URL(proxied).pathname, kind);
  }
  return out;
}

/**
 * A `WWW-Authenticate` value with its `resource_metadata` URL at the proxy.
 *
 * @example rewriteChallenge('Bearer resource_metadata="https://up/.well-known/oauth-protected-resource/mcp"', mounts, 'http://127.0.0.1:7430')
 */
export function rewriteChallenge(value: string, mounts: OAuthMounts, proxyOrigin: string): string {
  return value.replace(
    /(resource_metadata\s*=\s*")([^"]*)(")/i,
    (_all, open: string, url: string, close: string) => `${open}${mounts.toProxy(url, proxyOrigin)}${close}`,
  );
}

/**
 * The auth-params of a challenge (`error`, `error_description`, `scope`, `resource_metadata` …), names lower-case.
 *
 * @example challengeParams('Bearer error="invalid_token", scope="read"') // { scheme: 'bearer', error: 'invalid_token', scope: 'read' }
 */
export function challengeParams(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  const scheme = /^\s*([A-Za-z0-9_-]+)/.exec(value);
  if (scheme) out.scheme = scheme[1]!.toLowerCase();
  const param = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let m = param.exec(value); m !== null; m = param.exec(value)) {
    out[m[1]!.toLowerCase()] = (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return out;
}
