import { AI } from './ai.js';
import { CHAT } from './chat.js';
import { CLOUD } from './cloud.js';
import { DATABASES } from './databases.js';
import type { ProviderFamily } from './family.js';
import { INFRA } from './infra.js';
import { MAIL } from './mail.js';
import { OBSERVABILITY } from './observability.js';
import { PAYMENTS } from './payments.js';
import { REGISTRIES } from './registries.js';
import { SAAS } from './saas.js';
import { SOURCE } from './source.js';

export type { ProviderFamily };

/** Every provider family, in the order their rules run (a nested prefix before the one it nests in). */
export const PROVIDER_FAMILIES: readonly ProviderFamily[] = [
  CLOUD,
  SOURCE,
  CHAT,
  PAYMENTS,
  MAIL,
  REGISTRIES,
  AI,
  OBSERVABILITY,
  DATABASES,
  INFRA,
  SAAS,
];
