// What @svc/issuance shows other packages: its rules and ports from the main entry, the store factories only from
// `@svc/issuance/stores` (wiring), and the SQL fragments other hosts' stores embed only from
// `@svc/issuance/shared-sql`. A store function re-exported from the main entry would let a host's rules run SQL.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as issuance from '@svc/issuance';
import * as sharedSql from '@svc/issuance/shared-sql';
import * as stores from '@svc/issuance/stores';

const root = path.resolve(__dirname, '..');

test('the main entry re-exports nothing from store/', () => {
  const index = readFileSync(path.join(root, 'src/index.ts'), 'utf8');
  const from = [...index.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
  expect(from.length).toBeGreaterThan(0);
  expect(from.filter((m) => !m!.startsWith('./domain/'))).toEqual([]);
});

test('the package has exactly three entries: rules, store factories for wiring, the shared SQL', () => {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: object };
  expect(Object.keys(pkg.exports).sort()).toEqual(['.', './shared-sql', './stores']);
});

test('no value is both a rule export and a store or shared-SQL export', () => {
  const rules = new Set(Object.keys(issuance));
  expect(Object.keys(stores).filter((k) => rules.has(k))).toEqual([]);
  expect(Object.keys(sharedSql).filter((k) => rules.has(k))).toEqual([]);
  expect(Object.keys(stores).every((k) => /^create\w+$/.test(k))).toBe(true);
});
