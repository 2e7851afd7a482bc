// CORS in Chromium: a page on a registered web origin (another port, so another origin) reads /token and, after a
// preflight for its Authorization header, /userinfo; a page on an unregistered origin cannot read a /token answer
// (the browser refuses it), though the host answered the request as it would without an Origin (the code is spent).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium-kit';
import * as kit from './token-kit';

const h = kit.useOidcHost();
let browser: Browser;
const servers: http.Server[] = [];

/** An empty page on a fresh loopback port: its own origin. */
async function pageServer(): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const s of servers) s.close();
});

async function fromPage(
  origin: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ url, init }) => {
        try {
          const res = await fetch(url, init);
          return { read: true, status: res.status, body: await res.json() };
        } catch (err) {
          return { read: false, error: String(err) };
        }
      },
      { url, init },
    );
  } finally {
    await page.close();
  }
}

test('a registered origin reads /token and /userinfo; an unregistered one cannot read /token', async () => {
  const registered = await pageServer();
  const stranger = await pageServer();
  const rp = await kit.provisionRp(h, { authMethod: 'none', webOrigins: [registered] });
  const exchangeFrom = async (origin: string) => {
    const { verifier, challenge } = kit.pkcePair();
    const code = await kit.codeFor(h, kit.grantFor(rp, { codeChallenge: challenge }));
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: rp.redirectUri,
      code_verifier: verifier,
      client_id: rp.client.clientId,
    }).toString();
    const answer = await fromPage(origin, `${h.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return { answer, body };
  };

  const ok = await exchangeFrom(registered);
  expect(ok.answer.read).toBe(true);
  expect(ok.answer.status).toBe(200);
  const tokens = ok.answer.body as { access_token: string };
  // Authorization is not a CORS-safelisted header: the browser preflights, then reads the answer.
  const info = await fromPage(registered, `${h.url}/userinfo`, {
    method: 'GET',
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  expect(info.read).toBe(true);
  expect(info.status).toBe(200);

  const refused = await exchangeFrom(stranger);
  expect(refused.answer.read).toBe(false);
  expect(refused.answer.error).toMatch(/TypeError/);
  // The host answered it all the same (CORS is not authentication): the code is spent.
  const again = await kit.postForm(h, Object.fromEntries(new URLSearchParams(refused.body)));
  expect(again.body.error).toBe('invalid_grant');
});
