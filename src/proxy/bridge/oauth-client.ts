import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { HttpEnvelope } from '../../upstream/types.js';
import { mcpAnswer } from '../oauth/challenge.js';
import { failureReason, formFields, hideSecrets, jsonObject } from '../oauth/facts.js';
import { OAuthMounts } from '../oauth/mounts.js';
import { hideUrlSecrets, OAuthSecrets } from '../oauth/secrets.js';
import { type OAuthStep, stepOfPath } from '../oauth/steps.js';
import { OAuthCallback } from './oauth-callback.js';
import { OAuthStore } from './oauth-store.js';

/**
 * The bridge as an OAuth client. A stdio client has no OAuth to offer, so when the upstream answers 401 the bridge
 * signs in itself, with the official SDK's client side (`auth()` over a provider of its own): discovery, dynamic
 * registration, PKCE, and the browser sent to the authorization server, which comes back to a loopback listener on
 * 127.0.0.1. The bridge says on stderr which URL to open (it opens nothing itself unless given `openBrowser`),
 * keeps the registration and tokens in its store, refreshes them when the upstream refuses them, and records each
 * step as the recording proxy does: an `http` envelope and an `oauth` event whose secrets are stable hashes.
 */

export interface BridgeOAuthOptions {
  /** The upstream's MCP URL. */
  url: string;
  /** The folder sign-ins are kept in (one 0600 file per upstream); undefined keeps them in memory. */
  folder: string | undefined;
  /** Writes one line for the user (stderr in the CLI). */
  say: (text: string) => void;
  /** Opens the authorization URL in a browser; without it the URL is only shown. */
  openBrowser?: ((url: URL) => void) | undefined;
  /** Trace lines for the flow. */
  envelope: (envelope: HttpEnvelope) => void;
  event: (fields: Record<string, unknown>) => void;
  /** Ends a sign-in that still waits for the browser. */
  signal: AbortSignal;
  fetch?: typeof fetch | undefined;
  /** How long an authorised retry may take for its answer head when the first try's clock ran out. */
  retryHeadersMs: number;
}

/** The bridge's OAuth client: wraps the upstream's fetch so that requests carry the token and a 401 signs in. */
export class BridgeOAuth {
  readonly secrets = new OAuthSecrets();
  private readonly store: OAuthStore;
  private readonly callback = new OAuthCallback();
  private readonly provider: OAuthClientProvider;
  private readonly seen = new Set<string>();
  private readonly mounts: OAuthMounts;
  private readonly endpoints = new Map<string, 'authorize' | 'token' | 'register' | 'revoke' | 'other'>();
  private readonly baseFetch: typeof fetch;
  /** The sign-in under way: every request refused meanwhile waits for it instead of starting another. */
  private signingIn: Promise<void> | undefined;
  private state = '';
  /** Where the browser was sent last (origin and path, no query). */
  private authorizeAt = '';
  private verifier = '';
  private exchanges = 0;

  constructor(private readonly options: BridgeOAuthOptions) {
    this.store = new OAuthStore(options.url, options.folder);
    this.mounts = new OAuthMounts(new URL(options.url));
    this.baseFetch = options.fetch ?? globalThis.fetch;
    this.provider = this.makeProvider();
  }

  /** Where the sign-in is kept (undefined: in memory). */
  get storePath(): string | undefined {
    return this.store.path;
  }

  /** A fetch for the upstream client: the token added, a 401 answered by signing in and trying once more. */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    await this.signingIn?.catch(() => undefined);
    const response = await this.baseFetch(input, this.withToken(init));
    if (response.status !== 401) {
      this.noteCall(response, init);
      return response;
    }
    this.noteCall(response, init);
    try {
      await this.signIn(response);
    } catch (err) {
      this.options.say(`OAuth sign-in to ${this.options.url} failed: ${(err as Error).message}`);
      return response;
    }
    await response.body?.cancel().catch(() => undefined);
    // The first try's clock (the upstream client's answer timeout) may have run out while the user signed in.
    const signal = init.signal?.aborted ? AbortSignal.timeout(this.options.retryHeadersMs) : init.signal;
    const retried = await this.baseFetch(input, this.withToken({ ...init, signal: signal ?? null }));
    this.noteCall(retried, init);
    return retried;
  };

  async close(): Promise<void> {
    await this.signingIn?.catch(() => undefined);
    await this.callback.close();
  }

  private withToken(init: RequestInit): RequestInit {
    const token = this.store.tokens?.access_token;
    if (token === undefined) return init;
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return { ...init, headers };
  }

  /** An `oauth` event for a refusal, and for the first answer to each token (as the proxy writes them). */
  private noteCall(response: Response, init: RequestInit): void {
    const token = this.store.tokens?.access_token;
    const sent = new Headers(this.withToken(init).headers).get('authorization') ?? undefined;
    const raw: string[] = [];
    response.headers.forEach((value, name) => {
      raw.push(name, value);
    });
    const gateway = { mounts: this.mounts, secrets: this.secrets, seen: this.seen };
    const origin = new URL(this.options.url).origin;
    const outcome = mcpAnswer(gateway, {
      origin,
      status: response.status,
      authorization: token === undefined ? undefined : sent,
      rawHeaders: raw,
    });
    if (outcome.event !== undefined) this.options.event(outcome.event);
  }

  private signIn(refused: Response): Promise<void> {
    this.signingIn ??= this.runSignIn(refused).finally(() => {
      this.signingIn = undefined;
    });
    return this.signingIn;
  }

  private async runSignIn(refused: Response): Promise<void> {
    // The port the saved registration names, so that it still holds (a registration is for one redirect URI).
    const saved = this.store.client?.redirect_uris?.[0];
    const port = saved === undefined ? 0 : Number(new URL(saved).port);
    await this.callback.listen(Number.isInteger(port) ? port : 0);
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(refused);
    const base = {
      serverUrl: this.options.url,
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      ...(scope !== undefined ? { scope } : {}),
      fetchFn: this.recordingFetch,
    };
    const first = await auth(this.provider, base);
    if (first === 'AUTHORIZED') return;
    const state = this.state;
    let code: string;
    try {
      code = await this.callback.code(state, this.options.signal);
    } catch (err) {
      this.options.event({
        step: 'authorize',
        status: 400,
        ok: false,
        reason: (err as Error).message,
      });
      throw err;
    }
    this.options.event({
      step: 'authorize',
      status: 302,
      ok: true,
      to: this.authorizeAt,
      request: { code: this.secrets.marker('code', code), state: this.secrets.marker('state', state) },
    });
    const second = await auth(this.provider, { ...base, authorizationCode: code });
    if (second !== 'AUTHORIZED') throw new Error('the authorization server did not issue a token');
  }

  private makeProvider(): OAuthClientProvider {
    const bridge = this;
    const { store, options } = this;
    return {
      get redirectUrl() {
        return bridge.callback.url;
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: 'tapedeck',
          redirect_uris: [bridge.callback.url],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      state: () => {
        bridge.state = bridge.callback.newState();
        return bridge.state;
      },
      clientInformation: () => {
        const client = store.client;
        // A client registered for another loopback port cannot receive this run's callback.
        if (client?.redirect_uris && !client.redirect_uris.includes(bridge.callback.url)) return undefined;
        return client;
      },
      saveClientInformation: (client: OAuthClientInformationFull) => store.update({ client }),
      tokens: () => store.tokens,
      saveTokens: (tokens: OAuthTokens) => store.update({ tokens }),
      redirectToAuthorization: (url: URL) => {
        bridge.authorizeAt = `${url.origin}${url.pathname}`;
        options.say(`sign in to ${url.origin} to go on recording ${options.url}: open ${url.href}`);
        options.openBrowser?.(url);
      },
      saveCodeVerifier: (verifier: string) => {
        bridge.verifier = verifier;
      },
      codeVerifier: () => bridge.verifier,
      invalidateCredentials: (scope) => {
        if (scope === 'all' || scope === 'client') store.forget('all');
        else if (scope === 'tokens') store.forget('tokens');
      },
    };
  }

  /** The fetch the SDK's OAuth client uses: each exchange recorded, its secrets as markers. */
  private readonly recordingFetch = async (
    input: string | URL,
    init: RequestInit = {},
  ): Promise<Response> => {
    const url = new URL(String(input));
    const stream = `oauth-${++this.exchanges}`;
    const headers = Object.fromEntries(new Headers(init.headers));
    if (headers.authorization !== undefined)
      headers.authorization = this.secrets.authorization(headers.authorization) ?? '';
    const method = init.method ?? 'GET';
    const shownUrl = hideUrlSecrets(url.href, this.secrets);
    this.options.envelope({
      dir: 'in',
      stream,
      conn: undefined,
      method,
      url: shownUrl,
      headers,
      atMs: Date.now(),
    });
    let response: Response;
    const body = typeof init.body === 'string' ? init.body : init.body?.toString();
    const step = this.stepOf(url, body);
    try {
      response = await this.baseFetch(url, init);
    } catch (err) {
      const reason = `the OAuth server could not be reached: ${(err as Error).message}`;
      this.options.event({ step, status: 502, ok: false, reason });
      throw err;
    }
    this.options.envelope({
      dir: 'out',
      stream,
      conn: undefined,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      atMs: Date.now(),
    });
    const text = await response.clone().text();
    this.options.event(this.facts(step, url, body, init, response.status, text));
    return response;
  };

  private stepOf(url: URL, body: string | undefined): OAuthStep {
    const step = stepOfPath(url.pathname, this.endpoints.get(`${url.origin}${url.pathname}`));
    if (step === 'token' && body !== undefined && formFields(body).grant_type === 'refresh_token')
      return 'refresh';
    return step;
  }

  private facts(
    step: OAuthStep,
    url: URL,
    body: string | undefined,
    init: RequestInit,
    status: number,
    text: string,
  ): Record<string, unknown> {
    const doc = jsonObject(text);
    const metadata = step === 'resource-metadata' || step === 'server-metadata';
    // Discovery tries several well-known URLs in turn: a 404 there is the client looking, not a failure.
    const fields: Record<string, unknown> = {
      step,
      status,
      ok: status < 400 || (metadata && status === 404),
    };
    if (metadata && doc !== undefined && status === 200) this.learn(step, url, doc, fields);
    const type = new Headers(init.headers).get('content-type') ?? '';
    const sent =
      body === undefined
        ? undefined
        : type.includes('application/x-www-form-urlencoded')
          ? formFields(body)
          : jsonObject(body);
    if (sent !== undefined) fields.request = hideSecrets(sent, this.secrets);
    if (sent !== undefined && typeof sent.resource === 'string') fields.resource = { asked: sent.resource };
    const clientAuth = this.secrets.authorization(
      new Headers(init.headers).get('authorization') ?? undefined,
    );
    if (clientAuth !== undefined) fields.clientAuth = clientAuth;
    if (doc !== undefined && !metadata) fields.response = hideSecrets(doc, this.secrets);
    const reason = fields.ok ? undefined : failureReason(status, doc);
    if (reason !== undefined) fields.reason = reason;
    return fields;
  }

  /** What a metadata document says the bridge needs: which URL is which endpoint. */
  private learn(
    step: OAuthStep,
    url: URL,
    doc: Record<string, unknown>,
    fields: Record<string, unknown>,
  ): void {
    if (step === 'resource-metadata') {
      if (typeof doc.resource === 'string') fields.resource = { asked: doc.resource };
      fields.authorizationServers = doc.authorization_servers;
      return;
    }
    fields.issuer = doc.issuer;
    const kinds = {
      authorization_endpoint: 'authorize',
      token_endpoint: 'token',
      registration_endpoint: 'register',
      revocation_endpoint: 'revoke',
    } as const;
    for (const [field, kind] of Object.entries(kinds)) {
      const value = doc[field];
      if (typeof value !== 'string') continue;
      try {
        const endpoint = new URL(value, url);
        this.endpoints.set(`${endpoint.origin}${endpoint.pathname}`, kind);
      } catch {
        // Not a URL: the SDK will fail on it and say so.
      }
    }
  }
}
