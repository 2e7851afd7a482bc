// The package's event receiver against a real session host's JWK Set: a SET the service's own builder signed is
// accepted once (onEvent called once, 202 both times), and forged or misaddressed ones are refused with RFC 8935's
// error JSON before onEvent sees them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEventReceiver, type SecurityEvent } from '@signin-service/node';
import { type ClaimedRow, SECURITY_EVENT_KIND, securityEventBody } from '@svc/events';
import { provisionApp, useStarted } from '@svc/testkit';
import { signJws } from '@svc/token-core';
import { generateKeyPair, SignJWT } from 'jose';
import { startFleet } from './fleet';

const fleet = useStarted(() => startFleet({ hosts: ['session'] }));

/** The handler on a plain server, with the few response methods it uses (as Express gives them). */
async function serve(handler: ReturnType<typeof createEventReceiver>) {
  const server = http.createServer((req, res) => {
    const r = Object.assign(res, {
      status(code: number) {
        res.statusCode = code;
        return r;
      },
      set(name: string, value: string) {
        res.setHeader(name, value);
        return r;
      },
      json(body: unknown) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(body));
      },
    });
    void handler(req as never, r as never, (err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, server };
}

const post = (url: string, body: string, type = 'application/secevent+jwt') =>
  fetch(url, { method: 'POST', headers: { 'content-type': type }, body });

it('accepts a real event once and refuses forged ones', async () => {
  const { infra } = fleet;
  const app = await provisionApp(infra);
  const other = await provisionApp(infra);
  const received: SecurityEvent[] = [];
  const { url, server } = await serve(
    createEventReceiver({
      sessionUrl: fleet.urls.session,
      applicationAnchor: app.anchor,
      issuer: fleet.issuer,
      onEvent: (e) => {
        received.push(e);
      },
    }),
  );
  const signerOf = (id: string) => infra.keyRing.signer(id);
  const row: ClaimedRow = {
    id: crypto.randomUUID(),
    applicationId: app.applicationId,
    applicationAnchor: app.anchor,
    kind: SECURITY_EVENT_KIND,
    targetUrl: url,
    contentType: 'application/secevent+jwt',
    payload: { event: 'session-revoked', subject: 'sub-1', sid: 'sid_abc', reason: 'logout' },
    txn: 'txn-1',
    status: 'PENDING',
    attempts: 0,
    nextAttemptAt: new Date(),
    firstAttemptAt: null,
    deliveredAt: null,
    lastError: null,
    lastStatus: null,
    createdAt: new Date(),
  };
  const real = await securityEventBody({ issuer: fleet.issuer, signerOf })(row);

  const first = await post(url, real);
  expect(first.status).toBe(202);
  expect(received).toEqual([
    expect.objectContaining({
      name: 'session-revoked',
      subject: 'sub-1',
      sid: 'sid_abc',
      reason: 'logout',
      jti: row.id,
      txn: 'txn-1',
    }),
  ]);
  // The same jti again: acknowledged, not handled twice.
  expect((await post(url, real)).status).toBe(202);
  expect(received).toHaveLength(1);

  const claims = JSON.parse(Buffer.from(real.split('.')[1]!, 'base64url').toString());
  const appSigner = (await signerOf(app.applicationId))!;
  const signed = (c: object, typ = 'secevent+jwt', signer = appSigner) =>
    signJws(signer, typ, JSON.stringify({ ...c, jti: crypto.randomUUID() }));
  const { privateKey } = await generateKeyPair('RS256');
  const foreign = await new SignJWT({ ...claims, jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: 'RS256', kid: appSigner.kid, typ: 'secevent+jwt' })
    .sign(privateKey);
  const otherSigner = (await signerOf(other.applicationId))!;
  const cases: [string, string, string?][] = [
    ['invalid_key', foreign],
    ['invalid_key', await signed(claims, 'secevent+jwt', otherSigner)],
    ['invalid_issuer', await signed({ ...claims, iss: 'https://evil.example' })],
    ['invalid_audience', await signed({ ...claims, aud: other.anchor })],
    ['invalid_request', await signed(claims, 'JWT')],
    ['invalid_request', await signed({ ...claims, events: { ...claims.events, 'urn:x': {} } })],
    ['invalid_key', real.replace(/\.[^.]*$/, '.')],
    ['invalid_request', 'not.a-set.at-all'],
    ['invalid_request', real, 'application/jwt'],
  ];
  for (const [err, token, type] of cases) {
    const res = await post(url, token, type);
    expect([res.status, (await res.json()).err]).toEqual([400, err]);
  }
  expect(received).toHaveLength(1);
  server.closeAllConnections();
  server.close();
});
