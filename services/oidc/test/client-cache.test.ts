// The OIDC host's client cache expires by the host's Clock: a client read by /token is reused while the clock
// stands inside the cache lifetime, even after its row changed, and read again once the clock has moved past it.
import { createOidcClient } from '@svc/provisioning';
import { provisionApp, settableClock, useInfra } from '@svc/testkit';
import { createClientStore } from '../src/store/clients';

const infra = useInfra();

test('a client is reused for the cache lifetime by the clock, then read again', async () => {
  const clock = settableClock();
  const clients = createClientStore(infra.db, clock, 2000);
  const app = await provisionApp(infra, { methods: ['OIDC'] });
  const { clientId } = await createOidcClient(infra.provisioning, {
    anchor: app.anchor,
    redirectUris: ['https://rp.example/callback'],
  });
  expect((await clients.get(clientId))?.active).toBe(true);
  await infra.db.oidcClient.update({ where: { clientId }, data: { status: 'REVOKED' } });
  clock.advance(1999);
  expect((await clients.get(clientId))?.active).toBe(true);
  clock.advance(1);
  expect((await clients.get(clientId))?.active).toBe(false);
});
