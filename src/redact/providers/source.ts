import type { ProviderFamily } from './family.js';

/** Source hosting and CI: GitHub, GitLab, Atlassian, and the build and code-quality services around them. */
export const SOURCE: ProviderFamily = {
  family: 'source',
  title: 'source hosting and CI',
  rules: [
    {
      id: 'github-token',
      type: 'regex',
      pattern: '\\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})\\b',
      hints: ['_'],
      minRun: 40,
    },
    {
      id: 'gitlab-token',
      type: 'regex',
      pattern: '\\bglpat-[A-Za-z0-9_-]{20,64}',
      hints: ['glpat-'],
      minRun: 26,
    },
    {
      id: 'gitlab-deploy-token',
      type: 'regex',
      pattern: '\\bgldt-[A-Za-z0-9_-]{20,64}',
      hints: ['gldt-'],
      minRun: 25,
    },
    {
      id: 'gitlab-runner-token',
      type: 'regex',
      pattern: '\\bglrt-[A-Za-z0-9_-]{20,64}',
      hints: ['glrt-'],
      minRun: 25,
    },
    {
      id: 'gitlab-pipeline-trigger-token',
      type: 'regex',
      pattern: '\\bglptt-[a-f0-9]{40}\\b',
      hints: ['glptt-'],
      minRun: 46,
    },
    {
      id: 'gitlab-oauth-secret',
      type: 'regex',
      pattern: '\\bgloas-[a-f0-9]{64}\\b',
      hints: ['gloas-'],
      minRun: 70,
    },
    {
      id: 'gitlab-runner-registration-token',
      type: 'regex',
      pattern: '\\bGR1348941[A-Za-z0-9_-]{20,64}',
      hints: ['GR1348941'],
      minRun: 29,
    },
    {
      // Feed, incoming-mail, SCIM/OAuth, CI build, agent, feature-flag and workspace tokens.
      id: 'gitlab-other-token',
      type: 'regex',
      pattern: '\\bgl(?:ft|imt|soat|cbt|agent|ffct|wt)-[A-Za-z0-9_-]{20,64}',
      hints: ['glft-', 'glimt-', 'glsoat-', 'glcbt-', 'glagent-', 'glffct-', 'glwt-'],
      minRun: 24,
    },
    {
      id: 'bitbucket-app-password',
      type: 'regex',
      pattern: '\\bATBB[A-Za-z0-9]{32}\\b',
      hints: ['ATBB'],
      minRun: 36,
    },
    {
      // Atlassian (Jira, Confluence, Bitbucket) API tokens: `ATATT3` and about 180 characters, `=`, a checksum.
      id: 'atlassian-api-token',
      type: 'regex',
      pattern: '\\bATATT3[A-Za-z0-9_-]{150,250}(?:=[A-Za-z0-9]{8})?',
      hints: ['ATATT3'],
      minRun: 156,
    },
    {
      id: 'sourcegraph-token',
      type: 'regex',
      pattern: '\\bsgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}\\b',
      hints: ['sgp_'],
      minRun: 44,
    },
    {
      id: 'sonarqube-token',
      type: 'regex',
      pattern: '\\bsq[pua]_[a-f0-9]{40}\\b',
      hints: ['sqp_', 'squ_', 'sqa_'],
      minRun: 44,
    },
    {
      // JFrog reference tokens: base64 of `reftkn:01:…`.
      id: 'jfrog-reference-token',
      type: 'regex',
      pattern: '\\bcmVmdGtuOjAxOj[A-Za-z0-9]{40,60}\\b',
      hints: ['cmVmdGtuOjAxOj'],
      minRun: 54,
    },
    {
      id: 'circleci-token',
      type: 'regex',
      pattern: '\\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\\b',
      hints: ['CCIPAT_'],
      minRun: 70,
    },
    {
      id: 'buildkite-token',
      type: 'regex',
      pattern: '\\bbkua_[a-f0-9]{40}\\b',
      hints: ['bkua_'],
      minRun: 45,
    },
  ],
};
