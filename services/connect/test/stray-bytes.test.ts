// A valid /redeem (single use) followed on the same connection by a request whose headers parse but whose chunked
// body is broken (#37): the client gets the tokens its redemption issued, then the connection closes. Before, it got
// only a 400 while the redemption happened, so the code was spent and its tokens lost.
import { brokenChunkedBytes, exchangeRaw, provisionAccount, requestBytes } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { sha256Hex } from '../src/domain/keys';
import { acceptCurrentTerms, realizeFor, useConnectPair } from './helpers';

const pair = useConnectPair();

test('a /redeem followed by a broken chunked request is answered with its tokens, once', async () => {
  const est = await pair.backend.establish({});
  expect(est.status).toBe(200);
  const account = await provisionAccount(pair.infra, { givenName: 'Ada' });
  await acceptCurrentTerms(pair.infra, account.id);
  const confirmationKey = await realizeFor(pair.infra, est.body.exposureKey, account.id);
  const url = `${pair.host.url}/redeem`;
  const body = JSON.stringify({
    exposureKey: est.body.exposureKey,
    hiddenKey: est.body.hiddenKey,
    confirmationKey,
  });
  const request = requestBytes(url, 'POST', { 'Content-Type': 'application/json' }, body);
  const { text, statuses } = await exchangeRaw(pair.host.url, `${request}${brokenChunkedBytes(url)}`);
  expect(statuses).toEqual([200]);
  const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { refreshToken: string };
  expect(decodeJwt(answer.refreshToken).rotationVersion).toBe(1);
  const inquiry = await pair.infra.db.inquiry.findUniqueOrThrow({
    where: { exposureKeyHash: sha256Hex(est.body.exposureKey) },
  });
  // The one redemption is the one whose answer the client holds: its session is the token's.
  const sessions = await pair.infra.db.session.findMany({ where: { accountId: account.id } });
  expect(sessions.map((s) => s.id)).toEqual([decodeJwt(answer.refreshToken).sid]);
  expect(inquiry.state).toBe('REDEEMED');
});
