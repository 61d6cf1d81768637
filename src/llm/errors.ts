/** Error bodies a provider's client understands, for what tapedeck answers itself. Pure. */
import { apiOfPath } from './types.js';

/**
 * An error body shaped as the API the path speaks: Anthropic `{type:"error",error:{type,message}}`, OpenAI
 * `{error:{message,type,code}}`.
 *
 * @example providerError('/v1/messages', 404, 'no recorded answer') // '{"type":"error","error":{"type":"not_found_error",…}}'
 */
export function providerError(path: string, status: number, message: string): string {
  const kind =
    status === 404
      ? 'not_found_error'
      : status === 403
        ? 'permission_error'
        : status >= 500
          ? 'api_error'
          : 'invalid_request_error';
  if (apiOfPath(path) === 'anthropic.messages') {
    return JSON.stringify({ type: 'error', error: { type: kind, message } });
  }
  return JSON.stringify({ error: { message, type: kind, param: null, code: kind } });
}
