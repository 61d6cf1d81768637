/**
 * Readers that hold tapedeck's CI reports to their formats' rules, shared by the unit tests of the renderers and
 * the end-to-end tests of the commands:
 *
 * - JUnit XML parsed with fast-xml-parser and checked against the structure the JUnit XML schema gives
 *   (testsuites > testsuite > properties?, testcase*; a testcase holds at most one of failure, error, skipped;
 *   counts and times are numbers and add up), plus XML 1.0's character rules, which the parser does not check;
 * - GitHub workflow commands read by their line grammar (`::level prop=value,…::message`) and unescaped;
 * - SARIF 2.1.0 validated by ajv against the structure the 2.1.0 specification requires of the objects tapedeck
 *   writes (sarif-structure.ts).
 */
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SARIF_STRUCTURE } from './sarif-structure.js';

/** An element as fast-xml-parser's ordered form gives it: its name, attributes and children in document order. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

function toElement(node: Ordered): XmlElement | undefined {
  const name = Object.keys(node).find((key) => key !== ':@');
  if (name === undefined || name === '#text' || name.startsWith('?')) return undefined;
  const content = node[name] as Ordered[];
  return {
    name,
    attributes: node[':@'] ?? {},
    children: content.map(toElement).filter((e): e is XmlElement => e !== undefined),
    text: content
      .filter((child) => '#text' in child)
      .map((child) => String(child['#text']))
      .join(''),
  };
}

/** XML 1.0's Char production, negated: what may not appear in a document at all. */
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/u;

/**
 * Parses a JUnit document: well-formed, XML 1.0 characters only, attribute and text values unescaped.
 *
 * @example const root = parseXml(renderJunit(report)); root.name // → 'testsuites'
 */
export function parseXml(xml: string): XmlElement {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed XML: ${JSON.stringify(valid.err)}`);
  const bad = NOT_XML_CHAR.exec(xml);
  if (bad) throw new Error(`character U+${bad[0].charCodeAt(0).toString(16)} is not allowed in XML 1.0`);
  if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')) throw new Error('no XML declaration');
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    preserveOrder: true,
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    htmlEntities: true,
  });
  const roots = (parser.parse(xml) as Ordered[]).map(toElement).filter((e) => e !== undefined);
  if (roots.length !== 1) throw new Error(`expected one root element, got ${roots.length}`);
  return roots[0]!;
}

const COUNT = /^(0|[1-9][0-9]*)$/;
const TIME = /^[0-9]+(\.[0-9]+)?$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$/;
const OUTCOMES = new Set(['failure', 'error', 'skipped']);

/**
 * What in a parsed JUnit document breaks the JUnit XML schema's structure; empty when nothing does.
 *
 * @example expect(junitProblems(parseXml(xml))).toEqual([])
 */
export function junitProblems(root: XmlElement): string[] {
  const problems: string[] = [];
  const need = (element: XmlElement, name: string, pattern?: RegExp) => {
    const value = element.attributes[name];
    if (value === undefined) problems.push(`<${element.name}> has no ${name}`);
    else if (pattern && !pattern.test(value))
      problems.push(`<${element.name}> ${name}="${value}" is malformed`);
  };
  if (root.name !== 'testsuites') return [`the root is <${root.name}>, expected <testsuites>`];
  for (const name of ['tests', 'failures', 'errors', 'skipped']) need(root, name, COUNT);
  need(root, 'time', TIME);
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const suite of root.children) {
    if (suite.name !== 'testsuite') {
      problems.push(`<testsuites> holds <${suite.name}>`);
      continue;
    }
    need(suite, 'name');
    for (const name of ['tests', 'failures', 'errors', 'skipped']) need(suite, name, COUNT);
    need(suite, 'time', TIME);
    need(suite, 'timestamp', TIMESTAMP);
    const counted = { tests: 0, failures: 0, errors: 0, skipped: 0 };
    suite.children.forEach((child, i) => {
      if (child.name === 'properties') {
        if (i !== 0) problems.push('<properties> is not the first child of <testsuite>');
        for (const property of child.children) {
          if (property.name !== 'property') problems.push(`<properties> holds <${property.name}>`);
          need(property, 'name');
          need(property, 'value');
        }
        return;
      }
      if (child.name !== 'testcase') {
        problems.push(`<testsuite> holds <${child.name}>`);
        return;
      }
      need(child, 'name');
      need(child, 'classname');
      need(child, 'time', TIME);
      if (child.attributes.line !== undefined && !/^[1-9][0-9]*$/.test(child.attributes.line))
        problems.push(`<testcase> line="${child.attributes.line}" is not a line number`);
      counted.tests += 1;
      const outcomes = child.children.filter((c) => OUTCOMES.has(c.name));
      if (outcomes.length > 1)
        problems.push(`<testcase name="${child.attributes.name}"> has several outcomes`);
      for (const other of child.children.filter((c) => !OUTCOMES.has(c.name)))
        problems.push(`<testcase> holds <${other.name}>`);
      const outcome = outcomes[0];
      if (outcome?.name === 'failure' || outcome?.name === 'error') {
        need(outcome, 'message');
        need(outcome, 'type');
        if (outcome.name === 'failure') counted.failures += 1;
        else counted.errors += 1;
      } else if (outcome?.name === 'skipped') counted.skipped += 1;
    });
    for (const [name, n] of Object.entries(counted)) {
      if (suite.attributes[name] !== String(n))
        problems.push(`<testsuite> says ${name}="${suite.attributes[name]}", its testcases count ${n}`);
      totals[name as keyof typeof totals] += n;
    }
  }
  for (const [name, n] of Object.entries(totals))
    if (root.attributes[name] !== String(n))
      problems.push(`<testsuites> says ${name}="${root.attributes[name]}", its suites add up to ${n}`);
  return problems;
}

/** The test cases of a parsed JUnit document, every suite's, with the outcome element each holds. */
export function junitCases(root: XmlElement): { testcase: XmlElement; outcome: XmlElement | undefined }[] {
  return root.children
    .flatMap((suite) => suite.children.filter((c) => c.name === 'testcase'))
    .map((testcase) => ({ testcase, outcome: testcase.children.find((c) => OUTCOMES.has(c.name)) }));
}

/** One workflow command, unescaped. */
export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  properties: Record<string, string>;
  message: string;
}

const PROPERTY_NAMES = new Set(['title', 'file', 'line', 'endLine', 'col', 'endColumn']);
const ANNOTATION = /^::(error|warning|notice)(?: ([^\r\n]*?))?::([^\r\n]*)$/;
const ESCAPE = /%(25|0D|0A|3A|2C)/g;
const UNESCAPED: Record<string, string> = { '25': '%', '0D': '\r', '0A': '\n', '3A': ':', '2C': ',' };

/**
 * Reads workflow commands line by line by their grammar: `::level name=value,name=value::message`, property
 * values free of raw `,` `:` CR LF, every `%` an escape. Throws on a line that breaks it.
 *
 * @example parseAnnotations('::error file=a.jsonl,line=3::no%0Amatch\n') // → [{ level: 'error', properties: { file: 'a.jsonl', line: '3' }, message: 'no\nmatch' }]
 */
export function parseAnnotations(text: string): Annotation[] {
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new Error('the last workflow command is not ended by a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const match = ANNOTATION.exec(line);
      if (!match) throw new Error(`not a workflow command: ${line}`);
      const [, level, list, message] = match;
      const properties: Record<string, string> = {};
      for (const pair of list === undefined || list === '' ? [] : list.split(',')) {
        const at = pair.indexOf('=');
        const name = pair.slice(0, at);
        const value = pair.slice(at + 1);
        if (at < 1 || !PROPERTY_NAMES.has(name)) throw new Error(`unknown property '${pair}' in: ${line}`);
        if (/[:]/.test(value)) throw new Error(`an unescaped ':' in ${name} of: ${line}`);
        properties[name] = decodeEscapes(value, line);
      }
      return { level: level as Annotation['level'], properties, message: decodeEscapes(message!, line) };
    });
}

function decodeEscapes(text: string, line: string): string {
  if (/%(?!25|0D|0A|3A|2C)/.test(text)) throw new Error(`a bare '%' in: ${line}`);
  return text.replace(ESCAPE, (_, code: string) => UNESCAPED[code]!);
}

const ajv = new Ajv({ allErrors: true });
// ajv-formats is CommonJS: under NodeNext its default export arrives as the module object.
const addFormats = formats as unknown as typeof formats.default;
addFormats(ajv);
const sarifValidator = ajv.compile(SARIF_STRUCTURE);

/**
 * What in a SARIF log breaks the 2.1.0 structure; empty when nothing does.
 *
 * @example expect(sarifProblems(JSON.parse(renderSarif(report)))).toEqual([])
 */
export function sarifProblems(log: unknown): string[] {
  if (sarifValidator(log)) return [];
  return (sarifValidator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}
