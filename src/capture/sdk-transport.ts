/**
 * The official SDK's Transport contract (`@modelcontextprotocol/sdk/shared/transport.js`), declared structurally,
 * so tapedeck needs the SDK neither at run time nor for its types. Every SDK-shaped transport tapedeck offers
 * implements it: recordTransport (a capture point around any Transport) and replayTransport (a cassette in place of
 * a server).
 */

/** A JSON-RPC message as SDK transports pass it (the SDK's `JSONRPCMessage`). */
export interface TransportMessage {
  jsonrpc: '2.0';
  [key: string]: unknown;
}

/** The SDK's `TransportSendOptions`: `relatedRequestId` ties a server's message to the request it concerns. */
export interface TransportSendOptions {
  relatedRequestId?: string | number | undefined;
  [key: string]: unknown;
}

/** Function properties compared bivariantly, as the SDK's own transports are written against them. */
export type TransportCallback<A extends unknown[]> = { bivarianceHack(...args: A): void }['bivarianceHack'];

/** The SDK's `Transport` (`@modelcontextprotocol/sdk/shared/transport.js`), structurally. */
export interface McpTransport {
  start(): Promise<void>;
  send(message: TransportMessage, options?: TransportSendOptions): Promise<void>;
  close(): Promise<void>;
  onclose?: TransportCallback<[]> | undefined;
  onerror?: TransportCallback<[error: Error]> | undefined;
  onmessage?: TransportCallback<[message: TransportMessage, extra?: unknown]> | undefined;
  sessionId?: string | undefined;
  setProtocolVersion?: TransportCallback<[version: string]> | undefined;
}
