import type { IncomingMessage, ServerResponse } from 'node:http';
import { duplicateHost } from '../../base/local-names.js';
import { answer, type ForwardContext, proxyErrorBody } from './context.js';
import { ProxiedExchange } from './exchange.js';
import { checkLocalRequest } from './guard.js';
import { shownUrl } from './url.js';

/**
 * Serves one client request: refuses it when it carries two Host headers (400) or its Host or Origin is not local
 * (nor allowed; 403), otherwise forwards it and records it (see {@link ProxiedExchange}).
 */
export function forwardExchange(req: IncomingMessage, res: ServerResponse, ctx: ForwardContext): void {
  const duplicate = duplicateHost(req.rawHeaders);
  const refused = duplicate ?? checkLocalRequest(req.headers.host, req.headers.origin, ctx.allow);
  if (refused !== undefined) {
    const { method, url = '', headers } = req;
    ctx.later.push(() =>
      ctx.recorder.event('rejected', {
        method,
        url: shownUrl(url),
        host: headers.host,
        origin: headers.origin,
        reason: refused,
      }),
    );
    req.resume();
    answer(res, duplicate === undefined ? 403 : 400, proxyErrorBody(null, `tapedeck: ${refused}`));
    return;
  }
  const path = req.url ?? '';
  // Absolute-form targets are for forward proxies; this one only serves paths.
  if (!path.startsWith('/')) {
    req.resume();
    const message = `tapedeck: expected a path such as ${ctx.upstream.pathname}, got '${path.slice(0, 200)}'`;
    answer(res, 400, proxyErrorBody(null, message));
    return;
  }
  if (ctx.oauth?.claims(path)) {
    void ctx.oauth.serve(req, res);
    return;
  }
  new ProxiedExchange(req, res, ctx).start();
}
