// The full command table of `pnpm admin`, in the order usage lists it.
import type { Command } from '../registry';
import { emailDomainCommands } from './email-domains';
import { listingCommands } from './listing';
import { oidcClientCommands } from './oidc-clients';
import { operationCommands } from './operations';
import { principalCommands } from './principals';
import { tenancyCommands } from './tenancy';

export const COMMANDS: readonly Command[] = [
  ...tenancyCommands,
  ...listingCommands,
  ...principalCommands,
  ...emailDomainCommands,
  ...operationCommands,
  ...oidcClientCommands,
];
