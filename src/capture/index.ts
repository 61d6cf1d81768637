export { type FramedLine, LineFramer, type LineFramerOptions } from './line-framer.js';
export { PipeCapture, type PipeCaptureOptions } from './pipe-capture.js';
