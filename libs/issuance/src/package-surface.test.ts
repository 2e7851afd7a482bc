// What @svc/issuance shows other packages: its rules and ports from the main entry, the store factories only from
// `@svc/issuance/stores` (wiring), and from `@svc/issuance/shared-sql` only the session-change channel: no SQL
// fragment leaves the package, so no host's store embeds the core's statements (#37). A store function re-exported
// from the main entry would let a host's rules run SQL.
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

test('shared-sql gives no SQL away, only the session-change channel', () => {
  expect(Object.keys(sharedSql)).toEqual(['SESSION_CHANGE_CHANNEL']);
});

test("no host's source imports from the issuance core's store/ or names its SQL fragments", () => {
  const services = path.resolve(root, '../../services');
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) {
        if (name !== 'node_modules' && name !== 'test') walk(file);
      } else if (file.endsWith('.ts')) {
        const text = readFileSync(file, 'utf8');
        if (
          /issueReadColumnsSql|snapshotColumnsSql|SESSION_WORKLOAD_AUTHORITY_SQL|toIssueRead|toSnapshot\b/.test(
            text,
          )
        ) {
          offenders.push(path.relative(services, file));
        }
      }
    }
  };
  walk(services);
  expect(offenders).toEqual([]);
});
