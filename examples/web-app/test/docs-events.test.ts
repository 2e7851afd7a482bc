// docs/events.md's two receivers, run as written (#39): each code block is taken from the page, the environment
// values and the application anchor (`shop`) given, and run against a real session host. A real logout writes the
// session-revoked row; the worker's own SET builder signs it with the application's real key and its push delivers
// it. Each sample accepts that event once (the same jti again is not handed on) and refuses a forged one. A sample
// that drifts from the SDK, jose or the service fails here.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type ClaimedRow, securityEventBody } from '@svc/events';
import { createPush } from '@svc/events/push';
import { resolveHost } from '@svc/events/stores';
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { setEventSubscription } from '@svc/provisioning';
import { postJson, provisionAccount, provisionApp, useStarted } from '@svc/testkit';
import express from 'express';
import { generateKeyPair, SignJWT } from 'jose';
import { startFleet } from '../../../clients/node/test/fleet';

const fleet = useStarted(() => startFleet({ hosts: ['session'] }));
const ROOT = path.join(__dirname, '..', '..', '..');
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';

/** The first code block under the `## heading` of docs/events.md. */
function sample(heading: string): string {
  const doc = readFileSync(path.join(ROOT, 'docs', 'events.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  const code = section && /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error(`docs/events.md has no js block under "## ${heading}"`);
  // The page promises short receivers.
  expect(code.trim().split('\n').length).toBeLessThanOrEqual(20);
  return code;
}

let dir: string;
beforeAll(async () => {
  // Beside the example application, whose node_modules hold express and the SDK, as a reader's project would.
  const artifacts = path.join(ROOT, 'examples', 'web-app', 'test-artifacts');
  await mkdir(artifacts, { recursive: true });
  dir = await mkdtemp(path.join(artifacts, 'docs-events-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes the sample for the application `anchor` (the one substitution) and loads it. */
async function load<T>(name: string, code: string, anchor: string): Promise<T> {
  const file = path.join(dir, `${name}.mjs`);
  await writeFile(file, code.replaceAll(/\bshop\b/g, anchor));
  return require(file) as T;
}

/**
 * `app` subscribed at `receiverUrl` and a session of it ended by a real logout at the session host: the SET the
 * worker would send for its outbox row (the worker's own body builder: RS256 under the application's active key).
 */
async function loggedOut(app: { anchor: string; applicationId: string }, receiverUrl: string) {
  const { infra } = fleet;
  await setEventSubscription(
    infra.provisioning,
    { production: false, allowPrivate: false },
    app.anchor,
    { url: receiverUrl, events: [] },
    infra.issuance.clock,
  );
  const account = await provisionAccount(infra);
  const issued = await issueSession(infra.issuance, {
    application: (await createApplicationsStore(infra.db).loadApplication({ anchor: app.anchor }))!,
    principal: { kind: 'ACCOUNT', accountId: account.id },
    authMethod: 'ACCESS_KEY_DIRECT',
  });
  const res = await postJson(`${fleet.urls.session}/logout`, { refreshToken: issued.refreshToken });
  expect([res.status, res.body]).toEqual([200, { revoked: true }]);
  const row = await infra.db.eventOutbox.findFirstOrThrow({ where: { applicationId: app.applicationId } });
  expect(row.payload).toEqual({
    event: 'session-revoked',
    subject: issued.subject,
    sid: issued.sid,
    reason: 'logout',
  });
  const claimed = { ...row, applicationAnchor: app.anchor } as ClaimedRow;
  const set = await securityEventBody({ issuer: fleet.issuer, signerOf: (id) => infra.keyRing.signer(id) })(
    claimed,
  );
  return { issued, row, set };
}

/** The SET's claims signed by a key the service never had, under the application's real kid. */
async function forged(set: string): Promise<string> {
  const [header, payload] = set
    .split('.')
    .slice(0, 2)
    .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT({ ...payload, jti: crypto.randomUUID() }).setProtectedHeader(header).sign(privateKey);
}

test('"A receiver with the SDK": the real event handed on once, a forged one refused', async () => {
  const signedOut: string[] = [];
  const forgotten: string[] = [];
  // The functions the sample leaves to its reader.
  Object.assign(globalThis, {
    signOutSession: async (sid: string) => signedOut.push(sid),
    forgetSubject: async (subject: string) => forgotten.push(subject),
  });
  const env = { SESSION_URL: process.env.SESSION_URL, ISSUER_URL: process.env.ISSUER_URL };
  process.env.SESSION_URL = fleet.urls.session;
  process.env.ISSUER_URL = fleet.issuer;
  // `app.listen(3000)` as written, on a free loopback port here.
  const listen = express.application.listen;
  let server: http.Server | undefined;
  express.application.listen = function (this: unknown) {
    server = (listen as (...a: unknown[]) => http.Server).call(this, 0, '127.0.0.1');
    return server;
  } as typeof listen;
  try {
    const app = await provisionApp(fleet.infra);
    await load('sdk-receiver', sample('A receiver with the SDK'), app.anchor);
    if (!server) throw new Error('the sample did not listen');
    if (!server.listening) await new Promise((r) => server!.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/security-events`;
    const { issued, row, set } = await loggedOut(app, url);
    // Delivered as the worker delivers it (its push: POST, application/secevent+jwt, no redirect followed).
    const pusher = createPush({ production: false, allowPrivate: false, resolveHost, timeoutMs: 5_000 });
    const push = (body: string) => pusher.push({ url: row.targetUrl, contentType: row.contentType, body });
    try {
      expect(row.targetUrl).toBe(url);
      expect(await push(set)).toEqual({ delivered: true, status: 202 });
      expect(signedOut).toEqual([issued.sid]);
      // The same jti again (a redelivery): acknowledged, not handed on twice.
      expect(await push(set)).toEqual({ delivered: true, status: 202 });
      expect(await push(await forged(set))).toMatchObject({ delivered: false, status: 400 });
      expect([signedOut, forgotten]).toEqual([[issued.sid], []]);
    } finally {
      pusher.close();
    }
  } finally {
    express.application.listen = listen;
    Object.assign(process.env, env);
    server?.closeAllConnections();
    server?.close();
  }
});

test('"A receiver with jose alone": the real event returned once, a forged one refused', async () => {
  // The page's constants, from the environment.
  Object.assign(globalThis, { SESSION_URL: fleet.urls.session, ISSUER_URL: fleet.issuer });
  const app = await provisionApp(fleet.infra);
  const { receive } = await load<{ receive(body: string): Promise<unknown> }>(
    'jose-receiver',
    sample('A receiver with jose alone'),
    app.anchor,
  );
  const { issued, set } = await loggedOut(app, 'http://127.0.0.1:9/never-called');
  expect(await receive(set)).toEqual({
    type: `${CAEP}session-revoked`,
    subject: issued.subject,
    sid: issued.sid,
    reason: 'logout',
  });
  expect(await receive(set)).toBeUndefined();
  await expect(receive(await forged(set))).rejects.toMatchObject({
    code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  });
});
