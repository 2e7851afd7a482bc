// useInfra's handle: it reads the infrastructure its beforeAll opened, and reading it before then throws at once
// instead of handing out an empty or stale copy.
import { randomUUID } from 'node:crypto';
import { useInfra } from './per-file';

const infra = useInfra();
let readEarly: unknown;
try {
  void infra.db;
} catch (err) {
  readEarly = err;
}

test('a read before beforeAll throws', () => {
  expect(readEarly).toBeInstanceOf(Error);
  expect((readEarly as Error).message).toMatch(/before its beforeAll/);
});

test('after beforeAll the handle reads the opened infrastructure', async () => {
  expect(await infra.redis.ping()).toBe('PONG');
  expect(await infra.db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  // The issuance core's stores are bound over the same connections.
  expect(await infra.issuance.ports.accounts.currentAuthority(randomUUID())).toBeUndefined();
  expect(infra.db).toBe(infra.db);
});
