// `pnpm start`'s own configuration (the hosts read theirs): whether and where the development mailbox runs, and the
// port each host listens on.
import { type Env, HOST_NAMES, type HostName, intVar, isProduction, readConfig } from '@svc/platform';

export interface FleetConfig {
  /** The development mailbox's ports, or undefined: in production, or when an SMTP server is configured. */
  mailbox: { webPort: number; smtpPort: number } | undefined;
  /**
   * The port a host listens on when its `<HOST>_URL` names one on this machine (plain http on localhost or a loopback
   * address, outside production): the fleet then answers at the URLs it was given. Other hosts keep their default.
   */
  hostPorts: Partial<Record<HostName, number>>;
}

const fleetVars = {
  DEV_MAILBOX_PORT: intVar(4199, { min: 1, max: 65_535 }),
  DEV_MAILBOX_SMTP_PORT: intVar(4198, { min: 1, max: 65_535 }),
};

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The port of a plain-http URL on this machine, or undefined (unset, not a URL, https, another machine's name). */
function localPort(raw: string | undefined): number | undefined {
  if (!raw?.trim()) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined; // the host itself refuses it, naming the variable
  }
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname)) return undefined;
  return Number(url.port || 80);
}

export function fleetConfigFromEnv(env: Env): FleetConfig {
  // A configured relay (SMTP_URL or SMTP_HOST) is used as it is; production never gets a mailbox.
  const smtpConfigured = Boolean(env.SMTP_URL?.trim() || env.SMTP_HOST?.trim());
  const production = isProduction(env);
  const hostPorts: Partial<Record<HostName, number>> = {};
  if (!production) {
    for (const host of HOST_NAMES) {
      const port = localPort(env[`${host.toUpperCase()}_URL`]);
      if (port !== undefined) hostPorts[host] = port;
    }
  }
  return readConfig(
    fleetVars,
    env,
    (v) => ({
      mailbox:
        production || smtpConfigured
          ? undefined
          : { webPort: v.DEV_MAILBOX_PORT, smtpPort: v.DEV_MAILBOX_SMTP_PORT },
      hostPorts,
    }),
    (v) =>
      v.DEV_MAILBOX_PORT === v.DEV_MAILBOX_SMTP_PORT
        ? [{ variable: 'DEV_MAILBOX_SMTP_PORT', problem: 'must differ from DEV_MAILBOX_PORT' }]
        : [],
  );
}
