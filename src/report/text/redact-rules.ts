import type { RuleFamily } from '../../redact/defaults.js';
import type { RedactRule } from '../../redact/types.js';
import { renderTable } from './table.js';

/**
 * What a rule hides, in a few words: the key name, the JSONPath, the regex, the header.
 *
 * @example describeRule({ type: 'key', name: 'token', exclude: ['progressToken'] }) === 'keys named token (not progressToken)'
 */
export function describeRule(rule: RedactRule): string {
  switch (rule.type) {
    case 'key': {
      const except = rule.exclude?.length ? ` (not ${rule.exclude.join(', ')})` : '';
      return `keys named ${rule.name}${except}`;
    }
    case 'path':
      return rule.path;
    case 'regex':
      return `/${rule.pattern}/${rule.flags ?? ''}`;
    case 'header': {
      const what = rule.contains ? `headers containing ${rule.name}` : `header ${rule.name}`;
      const except = rule.exclude?.length ? ` (not ${rule.exclude.length} harmless ones)` : '';
      return `${what}${except}${rule.hash ? ', kept as a stable hash' : ''}`;
    }
    case 'pem':
      return 'PEM, OpenSSH and PGP private key blocks (-----BEGIN … PRIVATE KEY-----)';
  }
}

/**
 * The built-in rules as a table (id, family, type, what) and how to turn them off, for `tapedeck record
 * --redact-defaults`.
 *
 * @example renderDefaultRules([{ family: 'source', title: 'source hosting', rules: [{ id: 'github-token', type: 'regex', pattern: 'gh[pousr]_[A-Za-z0-9]{36}' }] }])
 */
export function renderDefaultRules(families: readonly RuleFamily[], width?: number): string {
  const rows = families.flatMap((family) =>
    family.rules.map((rule) => [rule.id ?? '-', family.family, rule.type, describeRule(rule)]),
  );
  const legend = families.map((f) => `  ${f.family.padEnd(14)} ${f.title} (${f.rules.length})`).join('\n');
  return (
    renderTable(
      [{ header: 'id' }, { header: 'family' }, { header: 'type' }, { header: 'what', wrap: true }],
      rows,
      {
        width,
      },
    ) +
    `\n${rows.length} built-in rules in ${families.length} families:\n${legend}\n` +
    'Besides the rules, strings are redacted by structure: JSON inside a string is walked like a message;\n' +
    'NAME=value, name: value and "name": "value" pairs in text, and {name, value} objects, header lists and\n' +
    'form fields, hide the value when a key rule names it (numbers too); percent-encoded text is read decoded\n' +
    'as well; base64 that decodes to a secret is hidden whole.\n' +
    'Values are hidden in the trace copy only; the client and server see them.\n' +
    '--no-redact-defaults turns them off, as "extends": null does in your own config\n' +
    "(~/.config/tapedeck/redact.json) or a --redact-file; a project's .tapedeck/redact.json only adds rules.\n"
  );
}
