// A WebAuthn challenge lives five minutes on the host's one Clock, in the sign-in flows (libs/signin) and on the
// account page's sessions alike: the test moves the settable clock instead of waiting.
import { createFlowStore } from '@svc/signin';
import { settableClock, uniqueName, useInfra } from '@svc/testkit';
import { createAccountSessionStore } from '../src/store/account-sessions';

const infra = useInfra();

test('a sign-in flow challenge is answerable until five minutes have passed on the clock', async () => {
  const clock = settableClock();
  const flows = createFlowStore(infra.redis, { namespace: uniqueName('flow'), ttlSeconds: 3600, clock });
  const flowId = await flows.issue();
  await flows.putChallenge(flowId, 't', { value: 'c1', kind: 'authenticate' });
  clock.advance(299_999);
  expect(await flows.takeChallenge(flowId, 't')).toEqual({ value: 'c1', kind: 'authenticate' });
  await flows.putChallenge(flowId, 't', { value: 'c2', kind: 'authenticate' });
  clock.advance(300_000);
  expect(await flows.takeChallenge(flowId, 't')).toBeUndefined();
});

test("the account page's challenge runs on the same clock", async () => {
  const clock = settableClock();
  const sessions = createAccountSessionStore(infra.redis, {
    redisPrefix: uniqueName('connect'),
    ttlSeconds: 3600,
    clock,
  });
  const { id } = await sessions.create();
  await sessions.putChallenge(id, { value: 'c1', kind: 'register', userHandle: 'u' });
  clock.advance(300_000);
  expect(await sessions.takeChallenge(id)).toBeUndefined();
});
