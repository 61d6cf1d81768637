import type { ProviderFamily } from './family.js';

/**
 * AI model and tooling APIs. Order matters where prefixes nest: `sk-ant-` and `sk-or-v1-` come before the
 * general `sk-` so the marker names the provider.
 */
export const AI: ProviderFamily = {
  family: 'ai',
  title: 'AI model and tooling APIs',
  rules: [
    {
      id: 'anthropic-api-key',
      type: 'regex',
      pattern: '\\bsk-ant-[A-Za-z0-9_-]{20,256}',
      hints: ['-ant-'],
      minRun: 27,
    },
    {
      id: 'openrouter-api-key',
      type: 'regex',
      pattern: '\\bsk-or-v1-[a-f0-9]{64}\\b',
      hints: ['sk-or-v1-'],
      minRun: 73,
    },
    {
      // OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-`) and the many APIs that copied its shape.
      id: 'openai-api-key',
      type: 'regex',
      pattern: '\\bsk-[A-Za-z0-9_-]{20,256}',
      hints: ['sk-'],
      minRun: 23,
    },
    {
      id: 'huggingface-token',
      type: 'regex',
      pattern: '\\b(?:hf_|api_org_)[A-Za-z0-9]{34,40}(?![A-Za-z0-9])',
      hints: ['hf_', 'api_org_'],
      minRun: 37,
    },
    { id: 'groq-api-key', type: 'regex', pattern: '\\bgsk_[A-Za-z0-9]{52}\\b', hints: ['gsk_'], minRun: 56 },
    {
      id: 'perplexity-api-key',
      type: 'regex',
      pattern: '\\bpplx-[A-Za-z0-9]{48}\\b',
      hints: ['pplx-'],
      minRun: 53,
    },
    {
      id: 'replicate-api-token',
      type: 'regex',
      pattern: '\\br8_[A-Za-z0-9]{37}\\b',
      hints: ['r8_'],
      minRun: 40,
    },
    { id: 'xai-api-key', type: 'regex', pattern: '\\bxai-[A-Za-z0-9]{80}\\b', hints: ['xai-'], minRun: 84 },
    {
      id: 'langsmith-api-key',
      type: 'regex',
      pattern: '\\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\\b',
      hints: ['lsv2_'],
      minRun: 51,
    },
    {
      id: 'pinecone-api-key',
      type: 'regex',
      pattern: '\\bpcsk_[A-Za-z0-9]{5,8}_[A-Za-z0-9]{60,80}\\b',
      hints: ['pcsk_'],
      minRun: 71,
    },
    {
      id: 'tavily-api-key',
      type: 'regex',
      pattern: '\\btvly-(?:dev-|prod-)?[A-Za-z0-9]{32}\\b',
      hints: ['tvly-'],
      minRun: 37,
    },
    {
      id: 'fireworks-api-key',
      type: 'regex',
      pattern: '\\bfw_[A-Za-z0-9]{24}\\b',
      hints: ['fw_'],
      minRun: 27,
    },
    { id: 'cerebras-api-key', type: 'regex', pattern: '\\bcsk-[a-z0-9]{48}\\b', hints: ['csk-'], minRun: 52 },
    {
      id: 'llamacloud-api-key',
      type: 'regex',
      pattern: '\\bllx-[A-Za-z0-9]{48}\\b',
      hints: ['llx-'],
      minRun: 52,
    },
    { id: 'firecrawl-api-key', type: 'regex', pattern: '\\bfc-[a-f0-9]{32}\\b', hints: ['fc-'], minRun: 35 },
    {
      id: 'jina-api-key',
      type: 'regex',
      pattern: '\\bjina_[a-f0-9]{32}[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])',
      hints: ['jina_'],
      minRun: 67,
    },
    { id: 'e2b-api-key', type: 'regex', pattern: '\\be2b_[a-f0-9]{40}\\b', hints: ['e2b_'], minRun: 44 },
    {
      id: 'elevenlabs-api-key',
      type: 'regex',
      pattern: '\\bsk_[a-f0-9]{48}\\b',
      hints: ['sk_'],
      minRun: 51,
    },
    {
      id: 'anyscale-api-key',
      type: 'regex',
      pattern: '\\besecret_[A-Za-z0-9]{20,60}\\b',
      hints: ['esecret_'],
      minRun: 28,
    },
  ],
};
