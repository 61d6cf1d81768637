import { describe, expect, it } from 'vitest';
import { terminalWidth } from '../../src/cli/terminal.js';

describe('the width output fits', () => {
  it("is a terminal's own width, else COLUMNS, else 80, never under 40", () => {
    expect(terminalWidth({ isTTY: true, columns: 120 }, { COLUMNS: '200' })).toBe(120);
    expect(terminalWidth({ isTTY: false }, { COLUMNS: '200' })).toBe(200);
    expect(terminalWidth({}, {})).toBe(80);
    expect(terminalWidth({}, { COLUMNS: 'wide' })).toBe(80);
    expect(terminalWidth({ isTTY: true, columns: 0 }, {})).toBe(80);
    expect(terminalWidth({ isTTY: true, columns: 20 }, {})).toBe(40);
  });
});
