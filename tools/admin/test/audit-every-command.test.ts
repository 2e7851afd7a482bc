// Every command of the admin table, run once on a private database: each changing command writes at least one audit
// row naming the CLI user, each read writes none. A command missing from the walk below fails the test, so a new
// changing command cannot ship without its audit row. Then `audit list`, `verify` (and a row altered in the
// database) and `export` over what the walk wrote.
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { COMMANDS } from '@svc/provisioning/commands';
import { openPrivateDb, type PrivateDb, uniqueName } from '@svc/testkit';
import { exportJWK, generateKeyPair } from 'jose';
import { admin, jsonFile } from './run-admin';

jest.setTimeout(300_000);

let pdb: PrivateDb;
const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
let env: Record<string, string>;
beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'audit_walk', terms: true });
  env = { DATABASE_URL: pdb.url, USER: 'walker', KEY_ENCRYPTION_KEY: NEW, KEY_ENCRYPTION_KEYS_PREVIOUS: '' };
});
afterAll(async () => {
  await pdb.drop();
});

const publicJwkFile = async () => {
  const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return jsonFile(await exportJWK(publicKey), 'public.jwk.json');
};

// biome-ignore lint/suspicious/noExplicitAny: CLI output is untyped JSON
type Out = Record<string, any>;
interface Step {
  /** The command (its table name), read or change. */
  command: string;
  change: boolean;
  args: () => Promise<string[]> | string[];
  env?: Record<string, string>;
  keep?: (out: Out) => void;
}

const s: Record<string, string> = {};
const steps: Step[] = [
  {
    command: 'org create',
    change: true,
    args: () => ['--name', uniqueName('walkOrg')],
    keep: (o) => {
      s.org = o.id;
    },
  },
  { command: 'org set-status', change: true, args: () => ['--org', s.org!, '--status', 'ACTIVE'] },
  { command: 'org show', change: false, args: () => ['--org', s.org!] },
  { command: 'org list', change: false, args: () => [] },
  {
    command: 'sector create',
    change: true,
    args: () => ['--org', s.org!, '--name', uniqueName('walkSector')],
    keep: (o) => {
      s.sector = o.id;
    },
  },
  { command: 'sector set-status', change: true, args: () => ['--sector', s.sector!, '--status', 'ACTIVE'] },
  { command: 'sector show', change: false, args: () => ['--sector', s.sector!] },
  { command: 'sector list', change: false, args: () => [] },
  {
    command: 'app create',
    change: true,
    args: () => {
      s.app = uniqueName('walk');
      return ['--sector', s.sector!, '--anchor', s.app, '--name', 'en-US=Walk'];
    },
  },
  { command: 'app set-status', change: true, args: () => ['--app', s.app!, '--status', 'ACTIVE'] },
  { command: 'app add-rule', change: true, args: () => ['--app', s.app!, '--method', 'OIDC'] },
  {
    command: 'app add-rule',
    change: true,
    args: () => ['--app', s.app!, '--method', 'PASSKEY_USERNAMELESS'],
    keep: (o) => {
      s.rule = o.ruleId;
    },
  },
  { command: 'app remove-rule', change: true, args: () => ['--app', s.app!, '--rule', s.rule!] },
  {
    command: 'app add-return-rule',
    change: true,
    args: () => ['--app', s.app!, '--method', 'CALLBACK'],
    keep: (o) => {
      s.returnRule = o.ruleId;
    },
  },
  { command: 'app remove-return-rule', change: true, args: () => ['--app', s.app!, '--rule', s.returnRule!] },
  { command: 'app set-claims', change: true, args: () => ['--app', s.app!, '--email', 'OPTIONAL'] },
  {
    command: 'app add-client-key',
    change: true,
    args: async () => ['--app', s.app!, '--jwk-file', await publicJwkFile()],
  },
  { command: 'app show', change: false, args: () => ['--app', s.app!] },
  { command: 'app list', change: false, args: () => [] },
  {
    command: 'oidc-client create',
    change: true,
    args: () => ['--app', s.app!, '--redirect-uri', 'https://walk.example/cb'],
    keep: (o) => {
      s.client = o.clientId;
    },
  },
  { command: 'oidc-client list', change: false, args: () => [] },
  { command: 'oidc-client show', change: false, args: () => ['--client', s.client!] },
  {
    command: 'oidc-client set',
    change: true,
    args: () => ['--client', s.client!, '--redirect-uri', 'https://walk.example/cb2'],
  },
  { command: 'oidc-client rotate-secret', change: true, args: () => ['--client', s.client!] },
  {
    command: 'oidc-client registration-token create',
    change: true,
    args: () => ['--app', s.app!],
    keep: (o) => {
      s.token = o.registrationToken.id;
    },
  },
  { command: 'oidc-client registration-token list', change: false, args: () => [] },
  { command: 'oidc-client registration-token revoke', change: true, args: () => ['--id', s.token!] },
  { command: 'oidc-client delete', change: true, args: () => ['--client', s.client!] },
  {
    command: 'account create',
    change: true,
    args: () => {
      s.email = `${uniqueName('walker')}@example.test`;
      return ['--email', s.email];
    },
    keep: (o) => {
      s.account = o.id;
    },
  },
  { command: 'account show', change: false, args: () => ['--email', s.email!] },
  {
    command: 'account set-status',
    change: true,
    args: () => ['--account', s.account!, '--status', 'ACTIVE'],
  },
  {
    command: 'account grant',
    change: true,
    args: () => ['--account', s.account!, '--app', s.app!, '--claim', 'email', '--state', 'GRANTED'],
  },
  { command: 'account accept-terms', change: true, args: () => ['--account', s.account!] },
  {
    command: 'account link-sso',
    change: true,
    args: () => ['--account', s.account!, '--authority', 'corp-sso'],
  },
  ...(['agent', 'automation'] as const).flatMap((kind): Step[] => [
    {
      command: `${kind} create`,
      change: true,
      args: () => ['--account', s.account!, '--name', 'bot'],
      keep: (o) => {
        s[kind] = o.id;
      },
    },
    { command: `${kind} regenerate`, change: true, args: () => ['--id', s[kind]!] },
    { command: `${kind} revoke`, change: true, args: () => ['--id', s[kind]!] },
  ]),
  {
    command: 'access-key create',
    change: true,
    args: () => ['--app', s.app!, '--account', s.account!],
    keep: (o) => {
      s.accessKey = o.accessKeyIdentifier;
    },
  },
  { command: 'access-key revoke', change: true, args: () => ['--id', s.accessKey!] },
  {
    command: 'public-key register',
    change: true,
    args: async () => ['--app', s.app!, '--account', s.account!, '--jwk-file', await publicJwkFile()],
    keep: (o) => {
      s.publicKey = o.kid;
    },
  },
  { command: 'public-key revoke', change: true, args: () => ['--kid', s.publicKey!] },
  {
    command: 'email-domain set',
    change: true,
    args: () => ['--domain', 'walk.example', '--policy', 'ALLOW'],
  },
  {
    command: 'terms publish',
    change: true,
    args: () => ['--file', path.resolve(__dirname, '../src/example-terms.json')],
  },
  {
    command: 'keys rotate',
    change: true,
    args: () => ['--app', s.app!],
    keep: (o) => {
      s.kid = o.kids[0];
    },
  },
  { command: 'keys rotate', change: true, args: () => ['--oidc', '--now'] },
  { command: 'keys list', change: false, args: () => ['--app', s.app!] },
  { command: 'keys revoke', change: true, args: () => ['--app', s.app!, '--kid', s.kid!] },
  {
    command: 'app events set',
    change: true,
    args: () => ['--app', s.app!, '--url', 'https://hooks.walk.example/events'],
  },
  { command: 'app events show', change: false, args: () => ['--app', s.app!] },
  { command: 'sessions list', change: false, args: () => ['--app', s.app!, '--subject', 'nobody'] },
  {
    command: 'sessions suspend',
    change: true,
    args: async () => ['--sid', await sessionOf(s.app!, s.account!)],
  },
  { command: 'sessions resume', change: true, args: () => ['--sid', s.sid!] },
  {
    command: 'events list',
    change: false,
    args: () => ['--app', s.app!],
    keep: (o) => {
      s.event = o.events[0]?.id;
    },
  },
  { command: 'events redeliver', change: true, args: () => ['--id', s.event!] },
  { command: 'app events clear', change: true, args: () => ['--app', s.app!] },
  // Something sealed under the previous key, for the reseal to rewrite.
  {
    command: 'app create',
    change: true,
    env: { KEY_ENCRYPTION_KEY: OLD },
    args: () => ['--sector', s.sector!, '--anchor', uniqueName('walkold'), '--name', 'en-US=Old'],
  },
  { command: 'secrets reseal', change: true, env: { KEY_ENCRYPTION_KEYS_PREVIOUS: OLD }, args: () => [] },
  {
    command: 'operator-key create',
    change: true,
    args: () => ['--name', 'walk-ci', '--role', 'editor'],
    keep: (o) => {
      s.operatorKey = o.operatorKey.id;
    },
  },
  { command: 'operator-key list', change: false, args: () => [] },
  { command: 'operator-key revoke', change: true, args: () => ['--id', s.operatorKey!] },
  { command: 'audit list', change: false, args: () => [] },
  { command: 'audit verify', change: false, args: () => [] },
  { command: 'audit export', change: false, args: () => [] },
];

/** A live session of the account under the application, written directly (suspend and resume act on it). */
async function sessionOf(anchor: string, accountId: string): Promise<string> {
  const app = await pdb.db.application.findUniqueOrThrow({ where: { anchor } });
  s.sid = `sid_${randomBytes(12).toString('base64url')}`;
  await pdb.db.session.create({
    data: {
      id: s.sid,
      applicationId: app.id,
      accountId,
      subject: 'sub',
      authMethod: 'ACCESS_KEY_DIRECT',
      accessTtl: 600,
      refreshTtl: 86_400,
      currentJti: randomUUID(),
      status: 'ACTIVE',
      expiresAt: new Date(Date.now() + 86_400_000),
      sweepAfter: new Date(Date.now() + 86_400_000),
    },
  });
  return s.sid;
}

test('the walk covers every command of the table', () => {
  const walked = new Set(steps.map((st) => st.command));
  expect(COMMANDS.map((c) => c.name).filter((n) => !walked.has(n))).toEqual([]);
});

test('every changing command writes its audit row as the CLI user; every read writes none', async () => {
  for (const step of steps) {
    const before = await pdb.db.auditEvent.count();
    const args = [...step.command.split(' '), ...(await step.args())];
    const r = await admin(args, { ...env, ...step.env }).catch((err: Error) => {
      // audit export prints JSON lines, not one document: checked below through its own test.
      if (step.command === 'audit export') return { code: 0, json: {} as Out };
      throw err;
    });
    expect([step.command, r.code, r.code === 0 ? '' : JSON.stringify(r.json)]).toEqual([step.command, 0, '']);
    step.keep?.(r.json);
    const rows = await pdb.db.auditEvent.findMany({ where: { seq: { gt: BigInt(before) } } });
    if (step.change) {
      expect([step.command, rows.length > 0]).toEqual([step.command, true]);
      for (const row of rows)
        expect([step.command, row.actorKind, row.actorId]).toEqual([step.command, 'cli', 'walker']);
      // Never a secret: the printed secrets and hashes are absent from the row.
      for (const secret of [r.json.clientSecret, r.json.accessKeySecret, r.json.token, r.json.secret].filter(
        Boolean,
      ))
        expect(JSON.stringify(rows.map((row) => row.changes))).not.toContain(secret);
    } else {
      expect([step.command, rows.length]).toEqual([step.command, 0]);
    }
  }
});
