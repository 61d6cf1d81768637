import { type OAuthSecrets, SECRET_PARAMS } from './secrets.js';

/**
 * What an OAuth exchange said, as the trace keeps it: the form or JSON fields with every secret (tokens, codes,
 * verifiers, client secrets, state) replaced by its stable marker, the rest as sent. OAuth messages are flat
 * documents, so a field holding an object or a list is kept as it is, its secret-named fields hidden too.
 */

/** A document's fields with the flow's secrets hidden. */
export function hideSecrets(doc: Record<string, unknown>, secrets: OAuthSecrets): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(doc)) {
    const kind = SECRET_PARAMS[name];
    if (kind !== undefined && typeof value === 'string') out[name] = secrets.marker(kind, value);
    else if (value !== null && typeof value === 'object' && !Array.isArray(value))
      out[name] = hideSecrets(value as Record<string, unknown>, secrets);
    else out[name] = value;
  }
  return out;
}

/** A form body's fields (the last value of a repeated name wins; OAuth forbids repeats). */
export function formFields(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) out[name] = value;
  return out;
}

/** A JSON object body, or undefined when the text is not one. */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A form body with its `resource` parameters replaced by `map(value)`; the text unchanged when there are none. */
export function mapFormResource(body: string, map: (resource: string) => string): string {
  const params = new URLSearchParams(body);
  if (!params.has('resource')) return body;
  const values = params.getAll('resource').map(map);
  params.delete('resource');
  for (const value of values) params.append('resource', value);
  return params.toString();
}

/** A short reason for a failed step: the OAuth `error` and its description, when the answer has them. */
export function failureReason(status: number, doc: Record<string, unknown> | undefined): string | undefined {
  if (status < 400) return undefined;
  const error = typeof doc?.error === 'string' ? doc.error : undefined;
  const description = typeof doc?.error_description === 'string' ? doc.error_description : undefined;
  if (error === undefined) return `HTTP ${status}`;
  return description === undefined ? error : `${error}: ${description}`;
}
