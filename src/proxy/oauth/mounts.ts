/**
 * Where the proxy serves the OAuth servers an upstream relies on. The upstream's own origin is served at the
 * proxy's root, path for path, as the MCP traffic is; an authorization server on another origin gets a mount of its
 * own, `/.tapedeck/oauth/<n>/…`, created only when the upstream names that origin (in its metadata or a challenge),
 * so the proxy never becomes a way to reach a server the upstream did not point at.
 */

/** The path prefix of mounted origins. */
export const MOUNT_PREFIX = '/.tapedeck/oauth/';

/** The well-known documents that may name an issuer or a resource path after their own name (RFC 8414, RFC 9728). */
const WELL_KNOWN =
  /^\/\.well-known\/(oauth-protected-resource|oauth-authorization-server|openid-configuration)(\/.*)?$/;

/** A request path resolved to the server it belongs to. */
export interface MountedTarget {
  /** The URL to ask. */
  target: URL;
  /** The origin it belongs to is the upstream's own. */
  upstream: boolean;
}

/** The origin table of one proxy. */
export class OAuthMounts {
  private readonly origins: string[] = [];
  /** Resources as the proxy names them → as the upstream names them. */
  private readonly resources = new Map<string, string>();

  constructor(readonly upstream: URL) {}

  /**
   * The URL `url` is reached at through the proxy whose origin is `proxyOrigin`; an origin not seen before is
   * mounted. A URL that is not http(s) comes back unchanged.
   *
   * @example mounts.toProxy('https://up.example/.well-known/oauth-protected-resource/mcp', 'http://127.0.0.1:7430')
   */
  toProxy(url: string, proxyOrigin: string): string {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return url;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return url;
    const rest = `${parsed.pathname}${parsed.search}`;
    if (parsed.origin === this.upstream.origin) return `${proxyOrigin}${rest}`;
    let index = this.origins.indexOf(parsed.origin);
    if (index < 0) index = this.origins.push(parsed.origin) - 1;
    const prefix = `${MOUNT_PREFIX}${index}`;
    // An issuer's well-known document sits before its path (RFC 8414 §3.1); the mount must stay part of the path.
    const known = WELL_KNOWN.exec(parsed.pathname);
    if (known) return `${proxyOrigin}/.well-known/${known[1]}${prefix}${known[2] ?? ''}${parsed.search}`;
    return `${proxyOrigin}${prefix}${rest}`;
  }

  /**
   * The server URL a proxy path stands for, or undefined when the path names a mount that does not exist.
   *
   * @example mounts.toTarget('/.tapedeck/oauth/0/token') // { target: URL('https://as.example/token'), upstream: false }
   */
  toTarget(path: string): MountedTarget | undefined {
    const known = WELL_KNOWN.exec(path.split('?', 1)[0]!);
    const query = path.includes('?') ? path.slice(path.indexOf('?')) : '';
    if (known && (known[2] ?? '').startsWith(MOUNT_PREFIX)) {
      const inner = this.mounted(`${known[2]}`);
      if (inner === undefined) return undefined;
      const tail = inner.path === '/' ? '' : inner.path;
      return { target: new URL(`/.well-known/${known[1]}${tail}${query}`, inner.origin), upstream: false };
    }
    if (path.startsWith(MOUNT_PREFIX)) {
      const inner = this.mounted(path);
      return inner && { target: new URL(inner.path, inner.origin), upstream: false };
    }
    return { target: new URL(path, this.upstream.origin), upstream: true };
  }

  /** The origin and the rest of a path under a mount. */
  private mounted(path: string): { origin: string; path: string } | undefined {
    const match = /^\/\.tapedeck\/oauth\/(\d{1,4})(\/.*)?$/.exec(path);
    if (match === null) return undefined;
    const origin = this.origins[Number(match[1])];
    return origin === undefined ? undefined : { origin, path: match[2] ?? '/' };
  }

  /**
   * The upstream's resource (what its protected-resource metadata names) as the proxy names it: the proxy's origin
   * with the resource's path. The pair is remembered, so the proxy's name maps back to the upstream's own canonical
   * URL even when that URL's origin is not the one the proxy forwards to.
   */
  proxyResource(resource: string, proxyOrigin: string): string {
    let url: URL;
    try {
      url = new URL(resource);
    } catch {
      return resource;
    }
    // Written as the upstream wrote it (a pathless resource keeps having no trailing slash).
    const named = `${proxyOrigin}${resource.slice(url.origin.length)}`;
    this.resources.set(named, resource);
    return named;
  }

  /** The reverse: the upstream's resource a proxy resource stands for; a resource on another origin unchanged. */
  upstreamResource(resource: string, proxyOrigin: string): string {
    const known = this.resources.get(resource) ?? this.resources.get(resource.replace(/\/$/, ''));
    if (known !== undefined) return known;
    if (resource === proxyOrigin || resource.startsWith(`${proxyOrigin}/`)) {
      return `${this.upstream.origin}${resource.slice(proxyOrigin.length)}`;
    }
    return resource;
  }
}
