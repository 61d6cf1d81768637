export {
  HTTP_BRIDGE_DEFAULTS,
  type HttpBridgeOptions,
  type HttpBridgeResult,
  runHttpBridge,
} from './bridge.js';
export { recordHttpSession } from './session.js';
