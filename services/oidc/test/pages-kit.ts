// Test support for the OIDC host's browser side: the real app on a free port of 127.0.0.1 named `localhost` in
// OIDC_URL (the WebAuthn relying party id connect's test host uses too), over the real database and Redis, mail
// to a local SMTP server; and relying-party fixtures (an application with OIDC and passkey rules, a client).
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgreementsStore } from '@svc/issuance/stores';
import { ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { type Clock, listen } from '@svc/platform';
import { createOidcClient, type OidcAuthMethod, publishTerms } from '@svc/provisioning';
import {
  type AppFixtureOptions,
  contractChecked,
  openInfra,
  provisionApp,
  type TestInfra,
  testEnv,
  uniqueName,
  useStarted,
} from '@svc/testkit';
import { OIDC_RESPONSE_TYPES } from '@svc/token-core';
import { createOidcApp } from '../src/app';
import { oidcConfigFromEnv } from '../src/config';
import { type OpenedOidcDeps, openOidcDeps } from '../src/deps';

export interface OidcPagesHost {
  infra: TestInfra;
  deps: OpenedOidcDeps;
  /** The issuer (OIDC_URL). */
  url: string;
  /** Where this replica listens (differs from `url` for a second replica of the same issuer). */
  address: string;
  close(): Promise<void>;
}

/**
 * A replica of the host; `issuer` makes it another replica of an issuer already started (same OIDC_URL); `clock`
 * the clock it runs on (a test's settable clock), else the system clock; `env` variables over the kit's own
 * (replicas that share a RATE_LIMIT_NAMESPACE share their counters); `authorizeWindowSeconds` the /authorize
 * limit's window.
 */
export async function startOidcPages(
  opts: {
    smtpPort?: number;
    hostname?: string;
    issuer?: string;
    clock?: Clock;
    env?: Record<string, string>;
    authorizeWindowSeconds?: number;
  } = {},
): Promise<OidcPagesHost> {
  const infra = openInfra({ clock: opts.clock });
  await ensureActiveKey(infra.db, infra.issuance.kek, OIDC_SCOPE, new Date(infra.issuance.clock()));
  // Listening as a host process does (listen: its connection handling), before the app exists: OIDC_URL names the
  // port.
  let app: RequestListener | undefined;
  const server = await listen((req, res) => app?.(req, res), 0, '127.0.0.1');
  const address = `http://${opts.hostname ?? 'localhost'}:${(server.address() as AddressInfo).port}`;
  const url = opts.issuer ?? address;
  const config = oidcConfigFromEnv(
    testEnv({
      OIDC_URL: url,
      WEBAUTHN_RP_ID: opts.hostname ?? 'localhost',
      // Each test host counts on its own, so repeated runs from 127.0.0.1 do not trip each other's limits.
      RATE_LIMIT_NAMESPACE: uniqueName('oidc-rl'),
      MAIL_FROM: 'OIDC test <no-reply@localhost>',
      SMTP_URL: `smtp://127.0.0.1:${opts.smtpPort ?? 2525}`,
      ...opts.env,
    }),
  );
  // The limiters are bound with the host's dependencies, from these settings.
  if (opts.authorizeWindowSeconds !== undefined)
    config.pages.authorizeRate = {
      ...config.pages.authorizeRate,
      windowSeconds: opts.authorizeWindowSeconds,
    };
  const deps = openOidcDeps(config, infra.issuance.clock);
  const contract = contractChecked(createOidcApp(deps));
  app = contract.listener;
  await contract.load(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    infra,
    deps,
    url,
    address,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
      await deps.close();
      await infra.close();
    },
  };
}

/** Basic terms are fleet-wide: published once when none are, so the terms step shows for new accounts. */
export async function ensureTerms(host: OidcPagesHost): Promise<void> {
  if (await createAgreementsStore(host.infra.db).currentTerms()) return;
  const doc = (title: string) => ({
    schemaVersion: 1,
    title,
    sections: [{ heading: '1', paragraphs: ['Be kind.'] }],
  });
  await publishTerms(
    host.infra.provisioning,
    { locales: { 'en-US': { document: doc('Basic Terms') }, 'zh-CN': { document: doc('基本条款') } } },
    host.url,
  );
}

/** Two replicas of one issuer (the second's OIDC_URL is the first's) over one database and Redis. */
export async function startReplicaPair(): Promise<[OidcPagesHost, OidcPagesHost]> {
  const first = await startOidcPages();
  return [first, await startOidcPages({ issuer: first.url })];
}

/** startOidcPages's host for a test file: started before its tests, closed after (filled in beforeAll). */
export function useOidcPages(opts: Parameters<typeof startOidcPages>[0] = {}): OidcPagesHost {
  return useStarted(() => startOidcPages(opts));
}

export interface RelyingPartyFixture {
  anchor: string;
  applicationId: string;
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}

/** A fresh application (OIDC and passkey rules, a claim policy) and a client registered for `redirectUri`. */
export async function provisionRelyingParty(
  host: OidcPagesHost,
  opts: {
    redirectUris: string[];
    authMethod?: OidcAuthMethod;
    responseTypes?: string[];
    claims?: AppFixtureOptions['claims'];
    names?: AppFixtureOptions['names'];
    postLogoutRedirectUris?: string[];
    /** Origins whose pages may read the host's answers (CORS), as `--web-origin` registers them. */
    webOrigins?: string[];
    /** `--require-par`: /authorize only with a request_uri from /par. */
    requirePar?: boolean;
  },
): Promise<RelyingPartyFixture> {
  const app = await provisionApp(host.infra, {
    methods: ['OIDC', 'PASSKEY_USERNAMELESS'],
    claims: opts.claims,
    names: opts.names,
  });
  const created = await createOidcClient(host.infra.provisioning, {
    anchor: app.anchor,
    redirectUris: opts.redirectUris,
    postLogoutRedirectUris: opts.postLogoutRedirectUris,
    webOrigins: opts.webOrigins,
    authMethod: opts.authMethod,
    requirePar: opts.requirePar,
    // Every type unless a test narrows it: the pages' tests drive the implicit and hybrid flows too (the
    // registration default, code alone, is tested in tools/admin).
    responseTypes: opts.responseTypes ?? [...OIDC_RESPONSE_TYPES],
  });
  return {
    anchor: app.anchor,
    applicationId: app.applicationId,
    clientId: created.clientId,
    clientSecret: created.clientSecret,
    redirectUri: opts.redirectUris[0] as string,
  };
}

/**
 * A request of `rp`'s to /authorize on `base`: the code flow, scope openid, its first redirect URI; `over` adds or
 * replaces parameters (one set to undefined is left out).
 */
export function authorizeRequestUrl(
  base: string,
  rp: Pick<RelyingPartyFixture, 'clientId' | 'redirectUri'>,
  over: Record<string, string | undefined> = {},
): string {
  const params = {
    client_id: rp.clientId,
    redirect_uri: rp.redirectUri,
    response_type: 'code',
    scope: 'openid',
    ...over,
  };
  const q = new URLSearchParams(
    Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return `${base}/authorize?${q}`;
}
