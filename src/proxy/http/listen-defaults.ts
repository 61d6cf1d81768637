/** Where `record --upstream` listens unless `--listen` says otherwise (kept apart so the CLI reads it cheaply). */
export const HTTP_PROXY_LISTEN = { host: '127.0.0.1', port: 7430 } as const;
