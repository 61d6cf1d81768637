/**
 * OAuth peers for the proxy tests, built from the official SDK's pieces: a protected MCP server (the SDK's
 * authorization router with an in-memory provider of the test's own, its bearer-token middleware checking the
 * token's resource and scope, an McpServer behind it) and the SDK client's OAuth side with an in-memory client
 * provider that follows the authorization redirect with fetch instead of a browser.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  createOAuthMetadata,
  mcpAuthMetadataRouter,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * express, as the SDK's auth router needs it: loaded through require because the package ships no types (the few
 * calls made here are typed below).
 */
interface MiniApp {
  (req: IncomingMessage, res: ServerResponse): void;
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
  get(path: string, ...handlers: unknown[]): void;
}
type AuthedRequest = IncomingMessage & { auth?: AuthInfo; body?: unknown };
const express = createRequire(import.meta.url)('express') as { (): MiniApp; json(): unknown };
type AuthorizeResponse = Parameters<OAuthServerProvider['authorize']>[2];

const secret = () => randomBytes(18).toString('base64url');

/** What the authorization server issued, so tests can look for it in traces and check audiences. */
export interface Issued {
  codes: string[];
  accessTokens: string[];
  refreshTokens: string[];
  clientSecrets: string[];
  /** The `resource` each token was issued for, in order. */
  resources: (string | undefined)[];
}

/** An in-memory authorization server's logic, approving every request at once. */
class MemoryProvider implements OAuthServerProvider {
  readonly issued: Issued = {
    codes: [],
    accessTokens: [],
    refreshTokens: [],
    clientSecrets: [],
    resources: [],
  };
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  private readonly tokens = new Map<string, AuthInfo>();
  private readonly refresh = new Map<string, { clientId: string; scopes: string[]; resource?: URL }>();

  constructor(private readonly options: { ttlSeconds: number; grant?: (scopes: string[]) => string[] }) {}

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.clients.get(id),
      registerClient: (client) => {
        const full = { ...client, client_id: `client-${this.clients.size + 1}`, client_id_issued_at: 0 };
        if (full.client_secret !== undefined) this.issued.clientSecrets.push(full.client_secret);
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: AuthorizeResponse) {
    const code = secret();
    this.issued.codes.push(code);
    this.codes.set(code, { clientId: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string) {
    return this.codes.get(code)!.params.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _v?: string,
    _r?: string,
    resource?: URL,
  ) {
    const grant = this.codes.get(code);
    if (grant === undefined || grant.clientId !== client.client_id) throw new Error('unknown code');
    this.codes.delete(code);
    return this.issue(client.client_id, grant.params.scopes ?? [], resource ?? grant.params.resource);
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    token: string,
    _s?: string[],
    resource?: URL,
  ) {
    const held = this.refresh.get(token);
    if (held === undefined || held.clientId !== client.client_id) throw new Error('unknown refresh token');
    return this.issue(client.client_id, held.scopes, resource ?? held.resource);
  }

  /** Every access token issued so far expires now (refresh tokens stay good). */
  expireAll(): void {
    for (const info of this.tokens.values()) info.expiresAt = Math.floor(Date.now() / 1000) - 60;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const info = this.tokens.get(token);
    if (info === undefined) throw new Error('unknown token');
    return info;
  }

  private issue(clientId: string, asked: string[], resource: URL | undefined): OAuthTokens {
    const scopes = this.options.grant ? this.options.grant(asked) : asked;
    const access = secret();
    const refresh = secret();
    this.issued.accessTokens.push(access);
    this.issued.refreshTokens.push(refresh);
    this.issued.resources.push(resource?.href);
    const expiresAt = Math.floor(Date.now() / 1000) + this.options.ttlSeconds;
    this.tokens.set(access, {
      token: access,
      clientId,
      scopes,
      expiresAt,
      ...(resource ? { resource } : {}),
    });
    this.refresh.set(refresh, { clientId, scopes, ...(resource ? { resource } : {}) });
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.options.ttlSeconds,
      refresh_token: refresh,
      scope: scopes.join(' '),
    };
  }
}

/** A running protected MCP server. */
export interface ProtectedServer {
  origin: string;
  /** Its MCP endpoint. */
  url: string;
  /** The authorization server's origin (the MCP server's, unless it has one of its own). */
  authOrigin: string;
  issued: Issued;
  /** Makes every access token issued so far expired, as time would. */
  expireTokens(): void;
  close(): Promise<void>;
}

export interface ProtectedServerOptions {
  /** Lifetime of access tokens (default 3600 s). */
  ttlSeconds?: number;
  /** Scopes the MCP endpoint requires (default `mcp`). */
  requiredScopes?: string[];
  /** Which of the asked scopes the authorization server grants (default: all). */
  grant?: (scopes: string[]) => string[];
  /** The resource the bearer middleware expects tokens for (default: the MCP endpoint's own URL). */
  expectedResource?: (origin: string) => URL;
  /** Run the authorization server on an origin of its own (default: the MCP server's origin). */
  separateAuthServer?: boolean;
}

/** An express app listening on a free local port. */
async function listening(): Promise<{ app: MiniApp; server: Server; origin: string }> {
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { app, server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Starts an authorization server and a protected MCP server on one origin, the way the SDK's examples do: tokens
 * must be issued for `${origin}/mcp` and carry the `mcp` scope. One tool, `whoami`, says which client called.
 */
export async function startProtectedServer(options: ProtectedServerOptions = {}): Promise<ProtectedServer> {
  const { app, server, origin } = await listening();
  const auth = options.separateAuthServer ? await listening() : { app, server, origin };
  const provider = new MemoryProvider({
    ttlSeconds: options.ttlSeconds ?? 3600,
    ...(options.grant ? { grant: options.grant } : {}),
  });
  const mcpUrl = new URL(`${origin}/mcp`);
  const router = {
    provider,
    issuerUrl: new URL(`${auth.origin}/`),
    resourceServerUrl: mcpUrl,
    scopesSupported: ['mcp'],
    resourceName: 'test server',
  };
  auth.app.use(mcpAuthRouter(router));
  // With an authorization server of its own, the MCP server serves only its protected-resource metadata.
  if (auth.app !== app)
    app.use(mcpAuthMetadataRouter({ ...router, oauthMetadata: createOAuthMetadata(router) }));
  const bearer = requireBearerAuth({
    verifier: provider,
    requiredScopes: options.requiredScopes ?? ['mcp'],
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
    expectedResource: options.expectedResource?.(origin) ?? mcpUrl,
  });
  app.post('/mcp', express.json(), bearer, async (req: AuthedRequest, res: ServerResponse) => {
    const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says which OAuth client called' }, async () => ({
      content: [{ type: 'text', text: `client ${req.auth?.clientId ?? 'nobody'}` }],
    }));
    const transport = new StreamableHTTPServerTransport({
      enableJsonResponse: true,
    });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', bearer, (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(405).end();
  });
  return {
    origin,
    url: mcpUrl.href,
    issued: provider.issued,
    authOrigin: auth.origin,
    expireTokens: () => provider.expireAll(),
    close: async () => {
      await closeServer(server);
      if (auth.server !== server) await closeServer(auth.server);
    },
  };
}

/** An OAuth client provider kept in memory; the "browser" is fetch, following redirects until the callback. */
export class MemoryClientProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  /** Every URL the client sent its user to, and every hop of the redirects that followed. */
  readonly visited: string[] = [];
  code: string | undefined;
  private info: OAuthClientInformationFull | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'tapedeck test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    };
  }

  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationFull) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    let next = url.href;
    for (let hop = 0; hop < 5; hop++) {
      this.visited.push(next);
      if (next.startsWith(this.redirectUrl)) {
        this.code = new URL(next).searchParams.get('code') ?? undefined;
        return;
      }
      const res = await fetch(next, { redirect: 'manual' });
      const location = res.headers.get('location');
      if (location === null)
        throw new Error(`the authorization hop ${hop} answered ${res.status} with no redirect`);
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects on the way to the callback');
  }
}

/**
 * Connects the SDK client to `url` with OAuth: the first connect meets the 401, discovers, registers and sends the
 * user to authorize; the code is exchanged (finishAuth) and the second connect is authorised.
 */
export async function connectWithOAuth(url: string, provider: MemoryClientProvider): Promise<Client> {
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const probe = new Client({ name: 'oauth-test', version: '1.0.0' });
  try {
    await probe.connect(first);
    return probe;
  } catch (err) {
    if (provider.code === undefined) throw err;
  }
  await first.finishAuth(provider.code);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return client;
}
