import { describe, expect, it } from 'vitest';
import { palette, visibleWidth } from '../../../src/report/text/color.js';
import { renderTable } from '../../../src/report/text/table.js';
import { fitLine, fitText, wrapText } from '../../../src/report/text/wrap.js';
import { displayWidth } from '../../../src/trace/text-width.js';

describe('wrapping text', () => {
  it('breaks at spaces, keeping every word', () => {
    const text = 'MCP error -32602: Resource demo://resource/static/document/nope.md not found';
    const lines = wrapText(text, 30);
    expect(lines).toEqual([
      'MCP error -32602: Resource',
      'demo://resource/static/',
      'document/nope.md not found',
    ]);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(30);
  });

  it('breaks a word longer than a line after - / _ , and else between characters', () => {
    expect(wrapText('tool trigger-long-running-operation', 22)).toEqual([
      'tool',
      'trigger-long-running-',
      'operation',
    ]);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('日本語のテキスト', 6)).toEqual(['日本語', 'のテキ', 'スト']);
  });

  it('keeps inner spaces when asked not to fold them', () => {
    expect(wrapText('a    b', 10, { fold: false })).toEqual(['a    b']);
    expect(wrapText('a  b  c', 4, { fold: false })).toEqual(['a  b', 'c']);
  });

  it('fits a report line by wrapping it under its label, and a preview by cutting it', () => {
    const line = '  server    everything 2.0.0 "Everything" · protocol 2025-11-25';
    expect(fitLine(line, 80, 10)).toEqual([line]);
    const fitted = fitLine(line, 44, 10);
    expect(fitted).toEqual([
      '  server    everything 2.0.0 "Everything" ·',
      '            protocol 2025-11-25',
    ]);
    expect(fitText('a\n  long   text here', 8)).toBe('a long…');
  });
});

describe('tables at a width', () => {
  const columns = [{ header: 'tool' }, { header: 'calls', align: 'right' as const }];
  const rows = [
    ['echo', '3'],
    ['trigger-long-running-operation', '12'],
  ];

  it('are laid out as they are when they fit', () => {
    expect(renderTable(columns, rows, { width: 80 })).toBe(
      'tool                            calls\necho                                3\ntrigger-long-running-operation     12\n',
    );
  });

  it('narrow a name column and wrap its names, numbers kept whole', () => {
    const out = renderTable(columns, rows, { indent: '  ', width: 26 });
    expect(out).toBe(
      [
        '  tool               calls',
        '  echo                   3',
        '  trigger-long-         12',
        '  running-operation',
        '',
      ].join('\n'),
    );
    for (const line of out.split('\n')) expect(visibleWidth(line)).toBeLessThanOrEqual(26);
  });

  it('keep a coloured cell coloured on each line it wraps to', () => {
    const c = palette(true);
    const out = renderTable(
      [{ header: 'rule' }, { header: 'n', align: 'right' }],
      [[c.yellow('aaaa-bbbb-cccc'), '1']],
      {
        width: 13,
      },
    );
    expect(out.split('\n')).toEqual(['rule        n', `${c.yellow('aaaa-bbbb-')}  1`, c.yellow('cccc'), '']);
  });

  it('fall back to one block per row when no column can narrow enough', () => {
    const wide = [
      { header: 'name' },
      { header: 'calls', align: 'right' as const },
      { header: 'unanswered', align: 'right' as const },
      { header: 'p95', align: 'right' as const },
    ];
    const out = renderTable(wide, [['echo', '3', '0', '12ms']], { width: 20 });
    expect(out).toBe('echo\n  calls 3 ·\n  unanswered 0 ·\n  p95 12ms\n');
    for (const line of out.split('\n')) expect(visibleWidth(line)).toBeLessThanOrEqual(20);
  });
});
