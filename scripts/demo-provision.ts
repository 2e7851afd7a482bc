// What `pnpm demo` does (CONTRACTS, "Local development defaults"): provisions `demo-app` idempotently for the three
// browser flows (connect through the example app, OIDC through its /oidc/login, device through device-login),
// subscribes the example to the service's events (its /security-events, and its OIDC client's back-channel logout
// URI), writes the example's files under DEMO_DIR and returns the instructions with every value filled in.
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPrisma, type Db } from '@svc/db';
import type { TargetPolicy } from '@svc/events';
import { issuingConfigFromEnv } from '@svc/host';
import { isProduction, systemClock } from '@svc/platform';
import {
  acceptTerms,
  addClientKey,
  addReturnRule,
  addRule,
  createAccessKey,
  createAccount,
  createApp,
  createOidcClient,
  createOrg,
  createSector,
  type ProvisioningPorts,
  publishTerms,
  setClaims,
  setEventSubscription,
  setOidcClient,
  showEventSubscription,
} from '@svc/provisioning';
import { createProvisioningPorts } from '@svc/provisioning/stores';
import { BASELINE_TERMS } from '@svc/testkit';
import { kekFromBytes } from '@svc/token-core';

const EMAIL = 'demo@example.com';
/** What the example's sign-in (connect and OIDC), the device flow and the access-key curls need. */
export const DEMO_RULES = ['ACCESS_KEY_DIRECT', 'PASSKEY_USERNAMELESS', 'OIDC'] as const;
export const DEMO_RETURN_RULES = ['CALLBACK', 'DEVICE_CODE'] as const;

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Secrets are written readable by their owner only. */
function writeSecretJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

async function ensureApp(
  db: Db,
  ports: ProvisioningPorts,
  env: Record<string, string | undefined>,
  anchor: string,
  domain: string,
) {
  const config = issuingConfigFromEnv('connect', env);
  let app = await db.application.findUnique({ where: { anchor } });
  if (!app) {
    const org = await createOrg(ports, 'Demo organization');
    const sector = await createSector(ports, org.id, 'Demo sector');
    await createApp(
      ports,
      kekFromBytes(config.kekBytes, config.previousKekBytes),
      {
        sectorId: sector.id,
        anchor,
        names: { 'en-US': 'Demo App', 'zh-CN': '演示应用' },
        callbackDomains: [domain],
      },
      systemClock,
    );
    // The example asks for the email address; the person may decline.
    await setClaims(ports, anchor, { email: 'OPTIONAL' });
    app = await db.application.findUniqueOrThrow({ where: { anchor } });
  } else if (!app.callbackDomains.includes(domain)) {
    await db.application.update({
      where: { id: app.id },
      data: { callbackDomains: [...app.callbackDomains, domain] },
    });
  }
  for (const method of DEMO_RULES) {
    if (!(await db.authenticationRule.findFirst({ where: { applicationId: app.id, method, enabled: true } })))
      await addRule(ports, anchor, { method });
  }
  for (const method of DEMO_RETURN_RULES) {
    if (!(await db.returnRule.findFirst({ where: { applicationId: app.id, method, enabled: true } })))
      await addReturnRule(ports, anchor, method);
  }
  return app;
}

/** Reuses the written client key when its kid is still active for the application; otherwise makes and registers one. */
async function ensureClientKey(
  db: Db,
  ports: ProvisioningPorts,
  applicationId: string,
  anchor: string,
  file: string,
): Promise<string> {
  const existing = readJson(file);
  if (existing && typeof existing.kid === 'string' && typeof existing.d === 'string') {
    const row = await db.clientKey.findUnique({ where: { kid: existing.kid } });
    if (row && row.applicationId === applicationId && row.status === 'ACTIVE') return existing.kid;
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { kid } = await addClientKey(ports, anchor, publicKey.export({ format: 'jwk' }));
  writeSecretJson(file, { ...privateKey.export({ format: 'jwk' }), kid, alg: 'EdDSA' });
  return kid;
}

/** The demo OIDC client, its back-channel logout URI on the example (set again when it names another). */
async function ensureOidcClient(
  db: Db,
  ports: ProvisioningPorts,
  c: { applicationId: string; anchor: string; redirectUri: string; backchannelLogoutUri: string },
  policy: TargetPolicy,
  file: string,
) {
  const { applicationId, anchor, redirectUri, backchannelLogoutUri } = c;
  const found = await db.oidcClient.findFirst({
    where: { applicationId, authMethod: 'none', status: 'ACTIVE', redirectUris: { has: redirectUri } },
    orderBy: { createdAt: 'asc' },
  });
  if (found && found.backchannelLogoutUri !== backchannelLogoutUri)
    await setOidcClient(ports, found.clientId, { backchannelLogoutUri }, policy);
  const clientId =
    found?.clientId ??
    (
      await createOidcClient(
        ports,
        { anchor, redirectUris: [redirectUri], authMethod: 'none', backchannelLogoutUri },
        policy,
      )
    ).clientId;
  const value = { clientId, redirectUris: [redirectUri] };
  if (JSON.stringify(readJson(file)) !== JSON.stringify(value)) writeSecretJson(file, value);
  return clientId;
}

/** Every event to the example's receiver (docs/events.md), unless the subscription already says so. */
async function ensureSubscription(
  ports: ProvisioningPorts,
  anchor: string,
  url: string,
  policy: TargetPolicy,
) {
  const current = await showEventSubscription(ports, anchor);
  if (current.subscribed && current.url === url && current.allEvents) return;
  await setEventSubscription(ports, policy, anchor, { url, events: [] }, systemClock);
}

/** The demo account's access key, kept in DEMO_DIR so a re-run prints the same working curl. */
async function ensureAccessKey(
  db: Db,
  ports: ProvisioningPorts,
  anchor: string,
  accountId: string,
  file: string,
) {
  const existing = readJson(file);
  if (
    existing &&
    typeof existing.accessKeyIdentifier === 'string' &&
    typeof existing.accessKeySecret === 'string'
  ) {
    const row = await db.accessKey.findUnique({ where: { identifier: existing.accessKeyIdentifier } });
    if (row?.status === 'ACTIVE' && row.accountId === accountId)
      return { accessKeyIdentifier: existing.accessKeyIdentifier, accessKeySecret: existing.accessKeySecret };
  }
  const key = await createAccessKey(ports, { anchor, accountId });
  writeSecretJson(file, key);
  return key;
}

const ROOT = path.resolve(__dirname, '..');

/**
 * When this runs on the project's own Node from .tools/ (the machine's is older; scripts/use-node.sh fetched it), a
 * new terminal has neither that Node nor the pnpm installed with it on PATH: say how to get them first.
 */
export function shellHint(execPath = process.execPath): string {
  const tools = path.join(ROOT, '.tools') + path.sep;
  return execPath.startsWith(tools)
    ? `

  # first put the project's Node ${process.version} and its pnpm on PATH (your shell's node is older)
  . scripts/use-node.sh`
    : '';
}

/** The hint for a second terminal beside a running fleet (up.sh): always, since that terminal has none of its PATH. */
const SECOND_TERMINAL_HINT = `

  # first put the project's Node and pnpm on PATH (a new terminal does not have them; harmless where it does)
  . scripts/use-node.sh`;

export interface DemoOptions {
  /**
   * The output is printed by the running fleet once it is ready (`pnpm start --demo`, up.sh): it says so, and always
   * says how to get the project's Node and pnpm in the other terminal.
   */
  fleetRunning?: boolean;
}

export interface DemoResult {
  output: string;
  clientKid: string;
  oidcClientId: string;
}

export async function runDemo(
  env: Record<string, string | undefined>,
  opts: DemoOptions = {},
): Promise<DemoResult> {
  const anchor = env.DEMO_ANCHOR || 'demo-app';
  const demoDir = path.resolve(env.DEMO_DIR || '.demo');
  const port = Number(env.EXAMPLE_PORT || 4180);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error('EXAMPLE_PORT must be a port number');
  const example = `http://localhost:${port}`;
  // The fleet's shared configuration, read as a host reads it: the same database, KEK and URLs.
  const config = issuingConfigFromEnv('connect', env);
  const db = createPrisma(config.databaseUrl, config.db);
  const ports = createProvisioningPorts(db, {
    actor: { actor: { kind: 'cli', id: 'demo-provision', name: 'scripts/demo-provision.ts' } },
  });
  try {
    mkdirSync(demoDir, { recursive: true });
    const app = await ensureApp(db, ports, env, anchor, `localhost:${port}`);
    const clientKid = await ensureClientKey(
      db,
      ports,
      app.id,
      anchor,
      path.join(demoDir, 'client-key.jwk.json'),
    );
    // The example is on loopback: outside production (CONTRACTS "Events to applications") http:// is allowed there.
    const targets = {
      production: isProduction(env),
      allowPrivate: env.EVENTS_ALLOW_PRIVATE_TARGETS === 'true',
    };
    const oidcClientId = await ensureOidcClient(
      db,
      ports,
      {
        applicationId: app.id,
        anchor,
        redirectUri: `${example}/oidc/callback`,
        backchannelLogoutUri: `${example}/oidc/backchannel-logout`,
      },
      targets,
      path.join(demoDir, 'oidc-client.json'),
    );
    await ensureSubscription(ports, anchor, `${example}/security-events`, targets);
    if (!(await ports.agreements.currentTerms())) {
      const file = path.join(__dirname, '..', 'tools', 'admin', 'src', 'example-terms.json');
      await publishTerms(
        ports,
        existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : BASELINE_TERMS,
        config.urls.connect,
      );
    }
    const account =
      (await db.account.findUnique({ where: { email: EMAIL } })) ??
      (await createAccount(ports, { email: EMAIL, givenName: 'Demo', familyName: 'User' }));
    await acceptTerms(ports, account.id);
    const key = await ensureAccessKey(db, ports, anchor, account.id, path.join(demoDir, 'access-key.json'));
    const { native, session } = config.urls;
    const body = JSON.stringify({ applicationAnchor: anchor, ...key });
    const field = (name: string) => `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).${name}'`;
    const envPrefix = env.DEMO_DIR ? `DEMO_DIR=${demoDir} ` : '';
    const portPrefix = port !== 4180 ? `PORT=${port} ` : '';
    const output = `
${
  opts.fleetRunning
    ? `Demo application "${anchor}" is ready (files in ${demoDir}), and the fleet is running in this terminal (Ctrl-C
stops it). In another terminal in ${ROOT}:${SECOND_TERMINAL_HINT}`
    : `Demo application "${anchor}" is ready (files in ${demoDir}). With the fleet running (pnpm start), in another
terminal in ${ROOT}:${shellHint()}`
}

  # connect through the example application: start it, then open ${example}/ in a browser and click "Sign in"
  ${envPrefix}${portPrefix}pnpm example

  # OpenID Connect (code + PKCE, public client ${oidcClientId}) through the example application: open
  ${example}/oidc/login

  # what the service told the example (a sign-out everywhere, a suspension, ...), and who it signed out: open
  ${example}/events

  # device sign-in from a terminal
  pnpm device-login --app ${anchor}

  # the development mailbox, where each sign-in code arrives: open
  http://localhost:4199/

  # a token pair by direct issue with the demo access key, then check and refresh it
  TOKENS=$(curl -s -X POST ${native}/direct-issue/access-key -H 'content-type: application/json' -d '${body}')
  curl -s -w '\\n' -X POST ${session}/introspect -H 'content-type: application/json' -d "{\\"accessToken\\":\\"$(echo "$TOKENS" | ${field('accessToken')})\\"}"
  curl -s -w '\\n' -X POST ${session}/refresh -H 'content-type: application/json' -d "{\\"refreshToken\\":\\"$(echo "$TOKENS" | ${field('refreshToken')})\\"}"

  # verify tokens offline against the application's JWK Set
  curl -s -w '\\n' ${session}/applications/${anchor}/jwks.json

`;
    return { output, clientKid, oidcClientId };
  } finally {
    await db.$disconnect();
  }
}
