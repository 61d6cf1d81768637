import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFilter, filterRows } from '../../../viewer/src/data/filter.js';
import {
  isTransportRow,
  transportShown,
  transportShownByDefault,
} from '../../../viewer/src/data/transport.js';
import { REPO_ROOT } from '../../helpers/peers.js';
import { openModel, text } from '../open-model.js';
import { SAMPLE } from './sample.js';

const HTTP = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http.jsonl');

describe('transport lines', () => {
  it('are hidden by default in an HTTP recording, leaving the MCP messages', async () => {
    const model = await openModel({ 'h/everything-http.jsonl': text(HTTP) });
    const rows = model.rows();
    const envelope = rows.filter(isTransportRow);
    expect(envelope).toHaveLength(22);
    expect(transportShownByDefault(model.sources)).toBe(false);
    const hidden = filterRows(rows, compileFilter({ hideTransport: true }), () => '');
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
