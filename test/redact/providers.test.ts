import { describe, expect, it } from 'vitest';
import { PROVIDER_RULE_COUNT } from '../../src/redact/defaults.js';
import { compile, RULE_FAMILIES, redactJson, redactText } from '../../src/redact/index.js';
import { hasTokenRun } from '../../src/redact/patterns.js';
import { PROVIDER_FAMILIES } from '../../src/redact/providers/index.js';
import type { RegexRule } from '../../src/redact/types.js';
import { PROVIDER_EXAMPLES, parts } from './provider-examples.js';

const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
const providers: RegexRule[] = PROVIDER_FAMILIES.flatMap((family) => family.rules as RegexRule[]);

describe('the provider rules', () => {
  it('know at least 80 provider formats, each with an id, in families the defaults list', () => {
    expect(PROVIDER_RULE_COUNT).toBe(providers.length);
    expect(providers.length).toBeGreaterThanOrEqual(80);
    const ids = providers.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    const listed = new Set(RULE_FAMILIES.flatMap((family) => family.rules.map((rule) => rule.id)));
    for (const id of ids) expect(listed.has(id), id).toBe(true);
  });

  it('each have a fabricated example and a near miss of their own', () => {
    expect(Object.keys(PROVIDER_EXAMPLES).sort()).toEqual(providers.map((rule) => rule.id as string).sort());
  });

  for (const rule of providers) {
    const id = rule.id as string;
    const examples = PROVIDER_EXAMPLES[id];
    if (examples === undefined) continue;
    describe(id, () => {
      it.each(examples.positives.map((example) => [parts(example).text, example]))(
        'hides %s, alone, in a sentence and quoted',
        (_text, example) => {
          const { text, secret } = parts(example);
          const marker = `[REDACTED:${id}]`;
          const expected = text.replace(secret, marker);
          expect(redactText(text, compiled)).toBe(expected);
          expect(redactText(`it said ${text} and went on`, compiled)).toBe(`it said ${expected} and went on`);
          expect(redactText(`{"value": "${text}"}`, compiled)).toBe(`{"value": "${expected}"}`);
        },
      );

      it.each(examples.positives.map((example) => [parts(example).text, example]))(
        'hides %s percent-encoded in a URL, in a form body and as a header list value',
        (_text, example) => {
          const { text, secret } = parts(example);
          const encoded = encodeURIComponent(text);
          const url = redactText(`https://app.example.com/callback?state=7&next=${encoded}#done`, compiled);
          expect(url).not.toContain(encodeURIComponent(secret));
          // What follows the secret may go with it (a pair's value runs to the end of the decoded text).
          expect(url).toMatch(
            /^https:\/\/app\.example\.com\/callback\?state=7&next=.*\[REDACTED:[a-z0-9.-]+\]/,
          );
          const form = redactText(`state=7&next=${encoded.replaceAll('%20', '+')}`, compiled);
          expect(form).not.toContain(encodeURIComponent(secret).replaceAll('%20', '+'));
          expect(form).toMatch(/^state=7&next=/);
          const listed = JSON.stringify(redactJson({ headers: [{ name: 'X-Note', value: text }] }, compiled));
          expect(listed).not.toContain(JSON.stringify(secret).slice(1, -1));
        },
      );

      it.each(examples.positives.map((example) => [parts(example).text]))(
        'every match holds a hint and the token run the rule claims: %s',
        (text) => {
          expect(rule.hints?.some((hint) => text.includes(hint)) ?? false, `${id}: no hint in ${text}`).toBe(
            true,
          );
          if (rule.minRun !== undefined && rule.minRun >= 16)
            expect(hasTokenRun(text, rule.minRun)).toBe(true);
        },
      );

      it.each(examples.nearMisses)('leaves the near miss %s alone', (text) => {
        expect(redactText(text, compiled)).toBe(text);
      });
    });
  }
});
