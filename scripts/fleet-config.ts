// `pnpm start`'s own configuration (the hosts read theirs): whether and where the development mailbox runs.
import { type Env, intVar, isProduction, readConfig } from '@svc/platform';

export interface FleetConfig {
  /** The development mailbox's ports, or undefined: in production, or when an SMTP server is configured. */
  mailbox: { webPort: number; smtpPort: number } | undefined;
}

const fleetVars = {
  DEV_MAILBOX_PORT: intVar(4199, { min: 1, max: 65_535 }),
  DEV_MAILBOX_SMTP_PORT: intVar(4198, { min: 1, max: 65_535 }),
};

export function fleetConfigFromEnv(env: Env): FleetConfig {
  // A configured relay (SMTP_URL or SMTP_HOST) is used as it is; production never gets a mailbox.
  const smtpConfigured = Boolean(env.SMTP_URL?.trim() || env.SMTP_HOST?.trim());
  return readConfig(
    fleetVars,
    env,
    (v) => ({
      mailbox:
        isProduction(env) || smtpConfigured
          ? undefined
          : { webPort: v.DEV_MAILBOX_PORT, smtpPort: v.DEV_MAILBOX_SMTP_PORT },
    }),
    (v) =>
      v.DEV_MAILBOX_PORT === v.DEV_MAILBOX_SMTP_PORT
        ? [{ variable: 'DEV_MAILBOX_SMTP_PORT', problem: 'must differ from DEV_MAILBOX_PORT' }]
        : [],
  );
}
