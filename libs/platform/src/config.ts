// Environment configuration shared by all hosts, with the defaults of CONTRACTS.md for local runs.
export const DEFAULT_PORTS = {
  connect: 4101,
  native: 4102,
  session: 4103,
  device: 4104,
  oidc: 4105,
} as const;

export type HostName = keyof typeof DEFAULT_PORTS;

export function envInt(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number`);
  return n;
}

/** A whole number >= 1 from the environment (bounds, limits), or `fallback` when unset; anything else fails start-up. */
export function envPositiveInt(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
}

export function hostUrl(host: HostName, env: NodeJS.ProcessEnv = process.env): string {
  const name = `${host.toUpperCase()}_URL`;
  return (env[name] ?? `http://127.0.0.1:${DEFAULT_PORTS[host]}`).replace(/\/+$/, '');
}

export function issuerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.ISSUER_URL ?? 'https://issuer.local.test').replace(/\/+$/, '');
}

export function portFor(host: HostName, env: NodeJS.ProcessEnv = process.env): number {
  return envInt('PORT', DEFAULT_PORTS[host], env);
}
