import { afterEach, describe, expect, it } from 'vitest';
import { onProcessSignals, processSignalHandlers } from '../../src/base/process-signals.js';

describe('onProcessSignals', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  it('serves any number of handlers from one process listener, without a leak warning', () => {
    const before = process.listenerCount('SIGHUP');
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const heard: number[] = [];
    try {
      for (let i = 0; i < 25; i++) stops.push(onProcessSignals(['SIGHUP', 'SIGTERM'], () => heard.push(i)));
      expect(process.listenerCount('SIGHUP')).toBe(before + 1);
      expect(processSignalHandlers('SIGHUP')).toBe(25);
      process.emit('SIGHUP', 'SIGHUP');
      expect(heard).toEqual(Array.from({ length: 25 }, (_, i) => i));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('takes its process listener away with the last handler, and an unregister twice is harmless', () => {
    const before = process.listenerCount('SIGHUP');
    const first = onProcessSignals(['SIGHUP'], () => {});
    const second = onProcessSignals(['SIGHUP'], () => {});
    first();
    first();
    expect(processSignalHandlers('SIGHUP')).toBe(1);
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    second();
    expect(processSignalHandlers('SIGHUP')).toBe(0);
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });

  it('passes the signal on, and lets a handler unregister itself while the signal is delivered', () => {
    const received: string[] = [];
    const stopSelf = onProcessSignals(['SIGTERM'], (signal) => {
      received.push(`self ${signal}`);
      stopSelf();
    });
    stops.push(onProcessSignals(['SIGTERM'], (signal) => received.push(`other ${signal}`)));
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGTERM', 'SIGTERM');
    expect(received).toEqual(['self SIGTERM', 'other SIGTERM', 'other SIGTERM']);
  });
});
