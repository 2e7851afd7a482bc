// Unknown and injected kids at the verifier: the key ring reloads a scope's keys for an unknown kid at most once a
// second (the spec's refresh-once-then-reject), so a flood of tokens under invented kids cannot turn into a flood
// of database reads, and the genuine kid keeps verifying throughout.
import type { Db } from '@svc/db';
import { createKeyRing } from '@svc/keyring';
import { provisionApp, settableClock, testKek, useInfra } from '@svc/testkit';

const infra = useInfra();

/** The real database, with the key ring's one read (signingKey.findMany) counted. */
function counted(db: Db): { db: Db; reads: () => number } {
  let reads = 0;
  const signingKey = new Proxy(db.signingKey, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'findMany' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        reads++;
        return value.apply(target, args);
      };
    },
  });
  const proxied = new Proxy(db, {
    get: (target, prop, receiver) =>
      prop === 'signingKey' ? signingKey : Reflect.get(target, prop, receiver),
  });
  return { db: proxied, reads: () => reads };
}

test('two hundred invented kids read the keys once more, not two hundred times; one more a second later', async () => {
  const app = await provisionApp(infra);
  const genuine = (await infra.keyRing.signer(app.applicationId))!.kid;
  const clock = settableClock();
  const { db, reads } = counted(infra.db);
  const ring = createKeyRing({ db, kek: testKek(), clock });
  try {
    expect(await ring.verificationKey(app.applicationId, genuine)).toBeDefined();
    expect(reads()).toBe(1);
    const kids = Array.from({ length: 200 }, (_, i) =>
      i % 2 ? `${genuine}-${i}` : ["' OR '1'='1", '../../etc/passwd', `k${'x'.repeat(4000)}`][i % 3]!,
    );
    const found = await Promise.all(kids.map((kid) => ring.verificationKey(app.applicationId, kid)));
    expect(found.filter(Boolean)).toEqual([]);
    expect(reads()).toBe(2);
    expect(await ring.verificationKey(app.applicationId, genuine)).toBeDefined();
    // The same second: still no further read.
    clock.advance(900);
    expect(await ring.verificationKey(app.applicationId, 'another-invented-kid')).toBeUndefined();
    expect(reads()).toBe(2);
    // A second on: one reload is allowed again (a key another replica made a moment ago is found).
    clock.advance(200);
    for (const kid of kids.slice(0, 20))
      expect(await ring.verificationKey(app.applicationId, kid)).toBeUndefined();
    expect(reads()).toBe(3);
  } finally {
    await ring.close();
  }
});
