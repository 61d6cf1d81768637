import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFilter, filterRows } from '../../../viewer/src/data/filter.js';
import { TraceModel } from '../../../viewer/src/data/model.js';
import { linesText } from '../../../viewer/src/data/raw-text.js';
import {
  hasTransportLines,
  isTransportRow,
  transportShown,
  transportShownByDefault,
} from '../../../viewer/src/data/transport.js';
import { REPO_ROOT } from '../../helpers/peers.js';
import { openModel, text } from '../open-model.js';
import { at, SAMPLE, SAMPLE_LINES } from './sample.js';

const META = SAMPLE_LINES[0] as { v: 1; type: 'meta'; startedAt: string; label: string };
const where = (lineNo: number) => ({ file: 'live', lineNo });

const HTTP = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http.jsonl');

describe('transport lines', () => {
  it('are hidden by default in an HTTP recording, leaving the MCP messages', async () => {
    const model = await openModel({ 'h/everything-http.jsonl': text(HTTP) });
    const rows = model.rows();
    const envelope = rows.filter(isTransportRow);
    expect(envelope).toHaveLength(22);
    expect(transportShownByDefault(model.sources)).toBe(false);
    const hidden = filterRows(rows, compileFilter({}, { hideTransport: true }), () => '');
    expect(hidden).toHaveLength(rows.length - 22);
    expect(hidden.some(isTransportRow)).toBe(false);
    // The link can say otherwise either way.
    expect(transportShown('1', model.sources)).toBe(true);
    expect(transportShown('0', model.sources)).toBe(false);
    expect(transportShown(undefined, model.sources)).toBe(false);
  });

  it('show by default in a stdio trace, where they are rare', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    expect(transportShownByDefault(model.sources)).toBe(true);
    expect(model.rows().filter(isTransportRow)).toHaveLength(1);
  });
});

describe('whether a trace holds transport lines', () => {
  it('knows an HTTP recording by its meta line, and a stdio one by its rows, looking at new rows only', async () => {
    const http = await openModel({ 'h/everything-http.jsonl': text(HTTP) });
    expect(hasTransportLines(http.sources[0]!)).toBe(true);
    const model = new TraceModel();
    const source = model.addSource({
      name: 'live',
      format: 'live',
      meta: { ...META },
      files: [linesText('live')],
    });
    expect(hasTransportLines(source)).toBe(false);
    source.push({ t: at(1), seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } }, where(1));
    expect(hasTransportLines(source)).toBe(false);
    source.push(
      { t: at(2), seq: 2, type: 'http', conn: 'c1', dir: 'in', method: 'POST', headers: {} },
      where(2),
    );
    expect(hasTransportLines(source)).toBe(true);
  });
});
