export { BodyCopy, type CopiedBody } from './body.js';
export { PROXY_ERROR_CODE, type ProxyNotice, proxyErrorBody } from './context.js';
export { EndpointHold, rewriteEndpoint } from './endpoint.js';
export { type AllowedHosts, allowedHosts, checkLocalRequest } from './guard.js';
export {
  type BodyKind,
  bodyKind,
  checkAddedHeaders,
  forwardableHeaders,
  type HeaderValueProblem,
  headerValueProblem,
  type TraceHeaders,
  traceHeaders,
} from './headers.js';
export {
  HTTP_RECORDER_DEFAULTS,
  type HttpExchangeHooks,
  HttpExchangeRecorder,
  HttpRecorder,
  type HttpRecorderOptions,
  type HttpRequestFacts,
  PRODUCED_BY,
} from './recorder.js';
export { HTTP_PROXY_DEFAULTS, type HttpProxy, type HttpProxyOptions, startHttpProxy } from './server.js';
export { SseTap, type SseTapHandlers } from './sse.js';
export { shownUrl, upstreamLabel, upstreamPath } from './url.js';
