// useInfra's handle: it reads the infrastructure its beforeAll opened, and reading it before then throws at once
// instead of handing out an empty or stale copy.
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
  expect(infra.issuance.db).toBe(infra.db);
  expect(infra.db).toBe(infra.db);
});
