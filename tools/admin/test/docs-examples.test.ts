// docs/admin.md's `account show` example against a real run: the account `account create` makes has the fields the
// page shows, with the values it shows for them (#37: the page said "emailVerified":false where the CLI answers
// true). The example's own values ("5b1c...", "...", a passkey added later in a browser) are the page's to choose.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { uniqueName } from '@svc/testkit';
import { ok } from './run-admin';

const DOC = readFileSync(path.resolve(__dirname, '../../../docs/admin.md'), 'utf8');

/** The JSON the page shows after `$ pnpm -s admin <command>`: its output lines up to the next `$` or fence. */
function documentedOutput(command: string): Record<string, unknown> {
  const lines = DOC.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`$ pnpm -s admin ${command}`));
  if (at < 0) throw new Error(`docs/admin.md shows no run of ${command}`);
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith('$') || line.startsWith('```')) break;
    out.push(line.trim());
  }
  return JSON.parse(out.join(''));
}

test("docs/admin.md's account show answer is what the CLI answers for an account it created", async () => {
  const documented = documentedOutput('account show').account as Record<string, unknown>;
  const email = `${uniqueName('docs')}@example.com`;
  await ok(['account', 'create', '--email', email, '--given-name', 'Ada']);
  const real = (await ok(['account', 'show', '--email', email])).account as Record<string, unknown>;
  expect(Object.keys(documented)).toEqual(Object.keys(real));
  for (const field of ['emailVerified', 'givenName', 'familyName', 'status', 'ssoAuthority', 'locale']) {
    expect({ field, value: documented[field] }).toEqual({ field, value: real[field] });
  }
});

test("docs/admin.md's audit list and verify answers are what the CLI answers", async () => {
  const documented = documentedOutput('audit list --action org.create --limit 1');
  await ok(['org', 'create', '--name', uniqueName('docsAudit')]);
  const real = await ok(['audit', 'list', '--action', 'org.create', '--limit', '1']);
  expect(Object.keys(documented)).toEqual(Object.keys(real));
  const [shown] = documented.auditEvents as Record<string, unknown>[];
  const [answered] = real.auditEvents as Record<string, unknown>[];
  expect(Object.keys(shown!)).toEqual(Object.keys(answered!));
  expect(Object.keys(documentedOutput('audit verify'))).toEqual(['verified']);
});
