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
    case 'header':
      return rule.contains ? `headers containing ${rule.name}` : `header ${rule.name}`;
    case 'pem':
      return 'PEM private key blocks (-----BEGIN … PRIVATE KEY-----)';
  }
}

/**
 * The built-in rules as a table (id, type, what) and how to turn them off, for `tapedeck record --redact-defaults`.
 *
 * @example renderDefaultRules([{ id: 'github-token', type: 'regex', pattern: 'gh[pousr]_[A-Za-z0-9]{36}' }])
 */
export function renderDefaultRules(
  rules: readonly RedactRule[],
  idOf: (rule: RedactRule) => string = ruleId,
): string {
  const rows = rules.map((rule) => [idOf(rule), rule.type, describeRule(rule)]);
  return (
    renderTable([{ header: 'id' }, { header: 'type' }, { header: 'what' }], rows) +
    `\n${rules.length} built-in rules. Values are hidden in the trace copy only; the client and server see them.\n` +
    '--no-redact-defaults turns them off; "extends": null in a redact config file does the same.\n'
  );
}

function ruleId(rule: RedactRule): string {
  return rule.id ?? '-';
}
