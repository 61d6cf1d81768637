import type { EndpointKind } from './documents.js';

/** The steps of an OAuth flow, as `oauth` events name them. */
export type OAuthStep =
  | 'challenge'
  | 'resource-metadata'
  | 'server-metadata'
  | 'register'
  | 'authorize'
  | 'token'
  | 'refresh'
  | 'revoke'
  | 'call'
  | 'other';

/**
 * The step a request path is, from its well-known name or the endpoint kind learned from metadata.
 *
 * @example stepOfPath('/.well-known/oauth-protected-resource/mcp', undefined) // 'resource-metadata'
 */
export function stepOfPath(pathname: string, endpoint: EndpointKind | undefined): OAuthStep {
  if (pathname.startsWith('/.well-known/oauth-protected-resource')) return 'resource-metadata';
  if (
    pathname.startsWith('/.well-known/oauth-authorization-server') ||
    pathname.startsWith('/.well-known/openid-configuration') ||
    pathname.endsWith('/.well-known/openid-configuration')
  )
    return 'server-metadata';
  if (endpoint === undefined || endpoint === 'other') return 'other';
  return endpoint;
}
