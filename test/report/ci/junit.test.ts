import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../../src/report/ci/junit.js';
import { xmlAttribute, xmlText } from '../../../src/report/ci/xml.js';
import { junitCases, junitProblems, parseXml } from '../../helpers/ci-formats.js';
import { diffFixture, replayFixture, scanFixture, shown, TRICKY, verifyFixture } from '../fixtures.js';

describe('renderJunit', () => {
  it("writes every command's report in the JUnit schema's structure, counts adding up", async () => {
    for (const report of [verifyFixture(), diffFixture(), await replayFixture(), scanFixture().report]) {
      const root = parseXml(renderJunit(shown(report)));
      expect(junitProblems(root), report.command).toEqual([]);
    }
  });

  it('gives verify one testcase per exchange: passed, failure with the diff, error, skipped', () => {
    const root = parseXml(renderJunit(shown(verifyFixture())));
    expect(root.attributes).toMatchObject({
      tests: '4',
      failures: '1',
      errors: '1',
      skipped: '1',
      time: '1.234',
    });
    const cases = junitCases(root);
    expect(cases.map(({ testcase, outcome }) => [testcase.attributes.name, outcome?.name])).toEqual([
      ['#0 initialize', undefined],
      ['#1 tools/call echo {"message":"hi"}', 'failure'],
      ['#2 tools/call slow {}', 'error'],
      ['#3 tools/call gone {}', 'skipped'],
    ]);
    const [, differ, timeout, skipped] = cases;
    expect(differ!.testcase.attributes).toMatchObject({
      classname: 'tools/call',
      time: '0.012',
      file: 'fixtures/my session.jsonl',
      line: '4',
    });
    expect(differ!.outcome!.attributes).toEqual({
      message: 'the live answer differs from the recorded one (1 difference)',
      type: 'differ',
    });
    // The structural diff, as verify prints it, is the failure's text.
    expect(differ!.outcome!.text).toContain(
      '$.result.content[0].text\n  recorded "Echo: hi"\n  live     "a \\"quote\\" <tag> & ]]> 50% a:b, c\\nnext line',
    );
    expect(timeout!.outcome!.attributes.message).toMatch(/^no answer to tools\/call within 30000 ms/);
    expect(skipped!.outcome!.attributes.message).toBe('the client cancelled it in the recording');
  });

  it('dates each suite without a zone, as the schema wants, and names the command and version', () => {
    const root = parseXml(renderJunit(shown(verifyFixture())));
    const suite = root.children[0]!;
    expect(suite.attributes.timestamp).toBe('2026-03-04T05:06:07');
    expect(suite.children[0]!.children.map((p) => [p.attributes.name, p.attributes.value])).toEqual([
      ['tapedeck.command', 'verify'],
      ['tapedeck.version', '0.1.0'],
    ]);
  });

  it('gives replay a testcase per miss and per unused exchange, and an error for corrupt lines', async () => {
    const cases = junitCases(parseXml(renderJunit(shown(await replayFixture()))));
    expect(cases.map(({ testcase, outcome }) => [testcase.attributes.name, outcome?.name])).toEqual([
      ['miss 1: tools/call add {"a":5,"b":5}', 'failure'],
      ['unused #1 tools/call greet {"name":"Ada"}', 'failure'],
      ['unused #2 tools/list', 'failure'],
      ['corrupt lines in fixtures/c.jsonl', 'error'],
    ]);
    expect(cases[0]!.outcome!.text).toContain('$.params.arguments.a\n  recorded 2\n  live     5');
  });

  it('marks unused exchanges skipped under --allow-unused', async () => {
    const cases = junitCases(parseXml(renderJunit(shown(await replayFixture(true)))));
    expect(cases.filter(({ outcome }) => outcome?.name === 'skipped')).toHaveLength(2);
  });
});

describe('XML escaping', () => {
  it('carries text and attributes through a parser unchanged, except what XML 1.0 cannot hold', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<a v="${xmlAttribute(TRICKY)}">${xmlText(TRICKY)}</a>\n`;
    const root = parseXml(xml);
    const expected = TRICKY.replace('\u0007', '\\u0007').replace('\uD800', '\\uD800');
    expect(root.attributes.v).toBe(expected);
    expect(root.text).toBe(expected);
  });

  it('keeps a character outside the BMP (a surrogate pair) as it is', () => {
    expect(xmlText('tape 📼')).toBe('tape 📼');
    expect(xmlText('\uDC00\uD800')).toBe('\\uDC00\\uD800');
  });

  it('writes the control characters XML 1.0 forbids as visible escapes, keeping tab and newline in text', () => {
    expect(xmlText('\u0000\u0008\u000B\u000C\u001F\uFFFE\uFFFF\t\n')).toBe(
      '\\u0000\\u0008\\u000B\\u000C\\u001F\\uFFFE\\uFFFF\t\n',
    );
  });
});
