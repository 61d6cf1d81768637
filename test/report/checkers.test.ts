/** The format checkers the report tests rely on reject what breaks each format: they are not vacuous. */
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/report/ci/junit.js';
import { renderSarif } from '../../src/report/ci/sarif.js';
import { junitProblems, parseAnnotations, parseXml, sarifProblems } from '../helpers/ci-formats.js';
import { scanFixture, shown, verifyFixture } from './fixtures.js';

describe('the JUnit checker', () => {
  it('refuses characters XML 1.0 forbids, and malformed XML', () => {
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a>\u0007</a>')).toThrow(/not allowed/);
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a><b></a>')).toThrow(/well-formed/);
  });

  it('finds counts that do not add up, a missing classname and a second outcome', () => {
    const xml = renderJunit(shown(verifyFixture()))
      .replace(
        'failures="1" errors="1" skipped="1" time="1.234" timestamp',
        'failures="2" errors="1" skipped="1" time="1.234" timestamp',
      )
      .replace(' classname="initialize"', '')
      .replace('<skipped ', '<failure message="m" type="t"/><skipped ');
    expect(junitProblems(parseXml(xml))).toEqual([
      '<testcase> has no classname',
      '<testcase name="#3 tools/call gone {}"> has several outcomes',
      // The second outcome made the skipped case count as a failure: the suite's skipped count is now wrong, and
      // the suite's failures (raised to 2 by hand) no longer match the root's 1.
      '<testsuite> says skipped="1", its testcases count 0',
      '<testsuites> says failures="1", its suites add up to 2',
      '<testsuites> says skipped="1", its suites add up to 0',
    ]);
  });
});

describe('the workflow command checker', () => {
  it('refuses raw colons and commas in properties, bare percent signs and unknown properties', () => {
    expect(() => parseAnnotations('::error title=a:b::m\n')).toThrow(/unescaped ':'/);
    expect(() => parseAnnotations('::error title=a,b::m\n')).toThrow(/unknown property 'b'/);
    expect(() => parseAnnotations('::error::50% done\n')).toThrow(/bare '%'/);
    expect(() => parseAnnotations('::error colour=red::m\n')).toThrow(/unknown property/);
    expect(() => parseAnnotations('error::m\n')).toThrow(/not a workflow command/);
  });
});

describe('the SARIF checker', () => {
  it('finds a missing rule id, a bad level, a line of 0 and a property SARIF does not define', () => {
    const log = JSON.parse(renderSarif(shown(scanFixture().report)));
    const run = log.runs[0];
    delete run.tool.driver.rules[0].id;
    run.results[0].level = 'fatal';
    run.results[1].locations[0].physicalLocation.region.startLine = 0;
    run.results[2].severity = 'high';
    expect(sarifProblems(log)).toEqual([
      "/runs/0/tool/driver/rules/0 must have required property 'id'",
      '/runs/0/results/0/level must be equal to one of the allowed values',
      '/runs/0/results/1/locations/0/physicalLocation/region/startLine must be >= 1',
      '/runs/0/results/2 must NOT have additional properties',
    ]);
  });
});
