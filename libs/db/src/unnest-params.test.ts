// unnestParams against the real PostgreSQL: a gathered statement settles on one generic plan, a bare unnest never.

import { testUrls } from '@svc/testkit';
import pg from 'pg';
import { unnestParams } from './gather';

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: testUrls.database });
  await client.connect();
  // A table of its own with settled statistics: the plan choice must not follow what other suites write to sessions.
  await client.query('CREATE TEMP TABLE probe_rows (id text PRIMARY KEY)');
  await client.query("INSERT INTO probe_rows SELECT 'sid_' || g FROM generate_series(1, 10000) AS g");
  await client.query('ANALYZE probe_rows');
});
afterAll(() => client.end());

/** Runs a named statement over a two-element batch eight times and reports how PostgreSQL planned it. */
async function plansOf(name: string, from: string) {
  const text = `SELECT s.id FROM ${from} AS q(sid) LEFT JOIN probe_rows s ON s.id = q.sid`;
  for (let i = 0; i < 8; i++) await client.query({ name, text, values: [['sid_a', 'sid_b']] });
  const { rows } = await client.query(
    'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1',
    [name],
  );
  return rows[0] as { generic_plans: string; custom_plans: string };
}

describe('unnestParams', () => {
  test('names each array parameter through a scalar sub-select', () => {
    expect(unnestParams(['text', 'int'], 3)).toBe('unnest((SELECT $3::text[]), (SELECT $4::int[]))');
  });

  test('lets PostgreSQL keep one generic plan where a bare unnest is planned on every call', async () => {
    const gathered = await plansOf('unnest_params_test', unnestParams(['text']));
    expect(Number(gathered.generic_plans)).toBeGreaterThan(0);
    expect(Number(gathered.custom_plans)).toBeLessThanOrEqual(5);
    const bare = await plansOf('unnest_bare_test', 'unnest($1::text[])');
    expect(Number(bare.generic_plans)).toBe(0);
    expect(Number(bare.custom_plans)).toBe(8);
  });
});
