// The full command table of `pnpm admin` and of the management API's /v1/ routes, in the order usage lists it.

import { auditCommands } from './audit';
import { emailDomainCommands } from './email-domains';
import { eventCommands } from './events';
import { listingCommands } from './listing';
import { oidcClientCommands } from './oidc-clients';
import { operationCommands } from './operations';
import { operatorKeyCommands } from './operator-keys';
import { principalCommands } from './principals';
import type { Command } from './registry';
import { tenancyCommands } from './tenancy';

export const COMMANDS: readonly Command[] = [
  ...tenancyCommands,
  ...listingCommands,
  ...principalCommands,
  ...emailDomainCommands,
  ...operationCommands,
  ...oidcClientCommands,
  ...eventCommands,
  ...operatorKeyCommands,
  ...auditCommands,
];
