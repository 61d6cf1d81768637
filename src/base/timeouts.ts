/**
 * How long tapedeck waits for one answer from the other side — a live server's answer to a forwarded or re-sent
 * request (`verify`, `run --mode update`, the live peers), an upstream's response headers, a client's answer to a
 * replayed server request — unless told otherwise. One number, so the flags' defaults and the library's agree.
 */
export const ANSWER_TIMEOUT_MS = 30_000;
