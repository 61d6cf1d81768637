export { encodeLine, timestamp } from './encode.js';
export * from './types.js';
