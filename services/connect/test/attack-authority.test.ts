// Issue 25 on connect over two replicas: an inquiry flow the attacker signed in with passkey P (the victim's
// account, P added by a mailed code) and held on the consent step is signed out on the other replica the moment
// the victim removes P: its next view asks for a sign-in, and posting the consent there realizes nothing.
import {
  makeAgent,
  provisionAccount,
  provisionBackend,
  type SignInPage,
  signedInAgent,
  softPasskey,
} from '@svc/testkit';
import { createAccountPageStore } from '../src/store/account-page';
import { useConnectHost } from './helpers';

const cx = useConnectHost({ replicas: 1 });
const FLOW = 'connect_flow';

jest.setTimeout(120_000);

test('an inquiry held signed in with P is signed out on the other replica once P is removed', async () => {
  const backend = await provisionBackend(cx.infra, cx.host.url, { claims: { email: 'OPTIONAL' } });
  const victim = await provisionAccount(cx.infra);
  await softPasskey(cx.infra, victim.id);
  const p = await softPasskey(cx.infra, victim.id);
  const est = await backend.establish({
    returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl: 'https://app.example.test/cb' } }],
  });
  const path = `/inquiries/${est.body.exposureKey}`;
  const page: SignInPage = {
    base: cx.host.url,
    origin: cx.host.url,
    rpId: '127.0.0.1',
    path,
    flowCookie: FLOW,
  };
  // The attacker signs in with P on replica A and stops at the consent step (a signed-in flow it holds).
  const attacker = await signedInAgent(page, p);
  const held = await attacker.request(path);
  expect(held.res.status).toBe(200);
  expect(held.text).toContain('consent_email');

  const row = await cx.infra.db.passkey.findFirstOrThrow({ where: { credentialId: p.credentialId } });
  expect(
    (await createAccountPageStore(cx.infra.db).removePasskey(victim.id, row.id, new Date())).outcome,
  ).toBe('removed');

  // The same browser, answered by replica B.
  const there = makeAgent(cx.replica.url);
  there.plant(FLOW, attacker.cookie(FLOW) as string);
  there.csrf = attacker.csrf;
  const posted = await there.form(`${path}/details`, { consent_email: 'GRANTED' });
  expect(posted.res.headers.get('location') ?? '').not.toContain('confirmationKey');
  const next = await there.request(path);
  expect(next.res.status).toBe(200);
  expect(next.res.headers.get('location')).toBeNull();
  expect(next.text).toContain('Sign in with a passkey');
  expect(next.text).not.toContain('consent_email');
  expect(next.text).not.toContain('iqc_');
  // Nothing was realized for the attacker: the account consented to nothing.
  expect(await cx.infra.db.claimGrant.count({ where: { accountId: victim.id } })).toBe(0);
});
