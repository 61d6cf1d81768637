import { afterEach, describe, expect, it } from 'vitest';
import { onProcessSignals, processSignalHandlers } from '../../src/base/process-signals.js';

// SIGUSR2 is a signal no code of tapedeck listens for, so no other test file (unit files share a process) can have
// left a handler for it.
describe('onProcessSignals', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  it('serves any number of handlers from one process listener, without a leak warning', () => {
    const before = process.listenerCount('SIGUSR2');
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const heard: number[] = [];
    try {
      for (let i = 0; i < 25; i++) stops.push(onProcessSignals(['SIGUSR2', 'SIGTERM'], () => heard.push(i)));
      expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
      expect(processSignalHandlers('SIGUSR2')).toBe(25);
      process.emit('SIGUSR2', 'SIGUSR2');
      expect(heard).toEqual(Array.from({ length: 25 }, (_, i) => i));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('takes its process listener away with the last handler, and an unregister twice is harmless', () => {
    const before = process.listenerCount('SIGUSR2');
    const first = onProcessSignals(['SIGUSR2'], () => {});
    const second = onProcessSignals(['SIGUSR2'], () => {});
    first();
    first();
    expect(processSignalHandlers('SIGUSR2')).toBe(1);
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    second();
    expect(processSignalHandlers('SIGUSR2')).toBe(0);
    expect(process.listenerCount('SIGUSR2')).toBe(before);
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
