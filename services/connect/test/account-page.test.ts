// The account page (issue 12.2) end to end in Chromium with the CDP virtual authenticator, a real SMTP server,
// PostgreSQL and Redis, and the session host: sign in with the passkey made on connect (fresh session id, old and
// planted ids refused), change a consent and see it in /refresh and /userinfo, reset a sector's identifier (new
// subject; that sector's sessions stop refreshing, the other sector's do not), add (with the notice mail), rename
// and remove passkeys (never the last, also under concurrency), sign out. Screenshots in both languages.
import path from 'node:path';
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { createOrg, createSector } from '@svc/provisioning';
import {
  addAuthenticator,
  type Backend,
  PAGE_STEP_CEILING_MS,
  postJson,
  provisionBackend,
  signUpByEmailCode,
  uniqueName,
  type VirtualAuthenticator,
} from '@svc/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { accountCookieName } from '../src/routes/pages-account';
import { pageSession, postForm } from './account-kit';
import { ARTIFACTS, type Credential, launchChromium } from './browser-kit';
import { startConnect, useConnectHost, useSessionHost } from './helpers';
import { codeAfter, mailCount, mailsTo, waitForMail } from './mail-kit';

const cx = useConnectHost({ hostname: 'localhost', replicas: 1 });
const session = useSessionHost();

jest.setTimeout(180_000);

let browser: Browser;
let notes: Backend;
let tasks: Backend;
let arcade: Backend;

const NOTICE = /passkey was added|添加了新的通行密钥/;
const email = `${uniqueName('ada')}@example.test`;

beforeAll(async () => {
  const org = await createOrg(cx.infra.provisioning, uniqueName('org'));
  const office = await createSector(cx.infra.provisioning, org.id, 'Lantern Office');
  const games = await createSector(cx.infra.provisioning, org.id, 'Lantern Games');
  notes = await provisionBackend(cx.infra, cx.host.url, {
    sectorId: office.id,
    claims: { email: 'REQUIRED', firstName: 'OPTIONAL', lastName: 'SYNTHETIC_FALLBACK' },
    names: { 'en-US': 'Lantern Notes', 'zh-CN': '灯笼笔记' },
  });
  tasks = await provisionBackend(cx.infra, cx.host.url, {
    sectorId: office.id,
    claims: { firstName: 'OPTIONAL' },
    names: { 'en-US': 'Lantern Tasks', 'zh-CN': '灯笼任务' },
  });
  arcade = await provisionBackend(cx.infra, cx.host.url, {
    sectorId: games.id,
    claims: { staticAvatar: 'OPTIONAL' },
    names: { 'en-US': 'Lantern Arcade', 'zh-CN': '灯笼街机' },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** The person's passkeys as their authenticator holds them (carried between pages). */
let held: Credential[] = [];

async function openPage(locale: 'en-US' | 'zh-CN' = 'en-US'): Promise<{
  context: BrowserContext;
  page: Page;
  authenticator: VirtualAuthenticator;
}> {
  const context = await browser.newContext({ locale });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  const page = await context.newPage();
  const authenticator = await addAuthenticator(context, page);
  for (const c of held) await authenticator.add(c);
  return { context, page, authenticator };
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function signInToAccount(page: Page): Promise<void> {
  await page.goto(`${cx.host.url}/account`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: 'Applications you use' }).waitFor();
}

const refreshAtSession = (refreshToken: string) => postJson(`${session.url}/refresh`, { refreshToken });

describe('the account page', () => {
  let notesTokens: { accessToken: string; refreshToken: string };
  let tasksSession: { sid: string; subject: string; refreshToken: string };
  let arcadeSession: { sid: string; subject: string; refreshToken: string };
  let accountId: string;

  test('a person signs up on connect (Lantern Notes) and uses two more applications', async () => {
    const est = await notes.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const { context, page, authenticator } = await openPage();
    await page.goto(`${cx.host.url}/inquiries/${est.body.exposureKey}`);
    const seen = mailCount(cx.mailbox, email);
    await signUpByEmailCode(page, email, (to) => codeAfter(cx.mailbox, to, seen));
    await page.getByLabel('I have read and accept the basic terms').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.locator('input[name="consent_firstName"][value="GRANTED"]').check();
    await page.locator('input[name="consent_lastName"][value="DENIED"]').check();
    await page.locator('#value_firstName').fill('Ada');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    const confirmationKey = await page.inputValue('#confirmation-key');
    held = await authenticator.credentials();
    await context.close();
    const redeemed = await postJson(`${cx.host.url}/redeem`, {
      exposureKey: est.body.exposureKey,
      hiddenKey: est.body.hiddenKey,
      confirmationKey,
    });
    expect(redeemed.status).toBe(200);
    notesTokens = redeemed.body;
    expect(mailsTo(cx.mailbox, email, NOTICE)).toHaveLength(0);

    const account = await cx.infra.db.account.findUniqueOrThrow({ where: { email } });
    accountId = account.id;
    const issue = async (anchor: string) =>
      issueSession(cx.host.deps.issuance, {
        application: (await createApplicationsStore(cx.infra.db).loadApplication({ anchor }))!,
        principal: { kind: 'ACCOUNT', accountId },
        authMethod: 'PASSKEY_USERNAMELESS',
      });
    tasksSession = await issue(tasks.fixture.anchor);
    arcadeSession = await issue(arcade.fixture.anchor);
  });

  test('sign-in page, then signed in with the passkey made on connect under a fresh session id', async () => {
    const { context, page, authenticator } = await openPage();
    await page.goto(`${cx.host.url}/account`);
    expect(await page.textContent('h1')).toBe('Your account');
    const csp = (await page.request.get(`${cx.host.url}/account`)).headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    await shoot(page, '20-account-sign-in.en-US');
    await page.goto(`${cx.host.url}/account?lang=zh-CN`);
    expect(await page.textContent('h1')).toBe('您的账户');
    await shoot(page, '20-account-sign-in.zh-CN');
    await page.goto(`${cx.host.url}/account?lang=en-US`);

    const before = await pageSession(context, page);
    const cookie = (await context.cookies()).find((c) => c.name === 'connect_account');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Lax');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Applications you use' }).waitFor();
    const after = await pageSession(context, page);
    expect(after.cookie).not.toBe(before.cookie);
    expect(after.csrf).not.toBe(before.csrf);
    expect(await page.textContent('main')).toContain(`Signed in as ${email}.`);
    // The id held before sign-in does not become signed in (it no longer exists at all).
    const old = await (await fetch(`${cx.host.url}/account`, { headers: { cookie: before.cookie } })).text();
    expect(old).not.toContain(email);
    held = await authenticator.credentials();
    await context.close();
  });

  test('a planted session id (never issued, or issued to the attacker) is never signed in by the victim', async () => {
    const attacker = await fetch(`${cx.host.url}/account`);
    const planted = /connect_account=([^;]+)/.exec(attacker.headers.get('set-cookie') ?? '')?.[1] ?? '';
    expect(planted).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const invented = 'A'.repeat(43);
    const { context, page, authenticator } = await openPage();
    await context.addCookies([{ name: 'connect_account', value: planted, url: cx.host.url }]);
    await page.goto(`${cx.host.url}/account`);
    expect((await context.cookies()).find((c) => c.name === 'connect_account')?.value).toBe(planted);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Applications you use' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'connect_account')?.value).not.toBe(planted);
    const replay = await (
      await fetch(`${cx.host.url}/account`, { headers: { cookie: `connect_account=${planted}` } })
    ).text();
    expect(replay).not.toContain(email);
    expect(replay).toContain('Sign in with a passkey');
    // An id the host never issued is replaced at once, not adopted.
    const res = await fetch(`${cx.host.url}/account`, { headers: { cookie: `connect_account=${invented}` } });
    expect(res.headers.get('set-cookie')).toMatch(/^connect_account=(?!A{43})[A-Za-z0-9_-]{43};/);
    held = await authenticator.credentials();
    await context.close();
  });

  test('applications by sector with consent per claim; a change reaches /refresh and /userinfo', async () => {
    const { context, page, authenticator } = await openPage();
    await signInToAccount(page);
    const office = page.locator('section.sector', { hasText: 'Lantern Office' });
    await expect(office.getByRole('heading', { name: 'Lantern Notes' }).count()).resolves.toBe(1);
    await expect(office.getByRole('heading', { name: 'Lantern Tasks' }).count()).resolves.toBe(1);
    const games = page.locator('section.sector', { hasText: 'Lantern Games' });
    await expect(games.getByRole('heading', { name: 'Lantern Arcade' }).count()).resolves.toBe(1);
    await shoot(page, '21-account.en-US');
    await page.goto(`${cx.host.url}/account?lang=zh-CN`);
    await page.getByRole('heading', { name: '您使用的应用' }).waitFor();
    await shoot(page, '21-account.zh-CN');
    await page.goto(`${cx.host.url}/account?lang=en-US`);

    const form = page.locator('form', { has: page.getByRole('heading', { name: 'Lantern Notes' }) });
    expect(await form.locator('input[name="consent_firstName"][value="GRANTED"]').isChecked()).toBe(true);
    await form.locator('input[name="consent_firstName"][value="DENIED"]').check();
    await form.getByRole('button', { name: 'Save choices for Lantern Notes' }).click();
    await page.getByText('Your choices for Lantern Notes are saved.').waitFor();
    expect(
      await page
        .locator('form', { has: page.getByRole('heading', { name: 'Lantern Notes' }) })
        .locator('input[name="consent_firstName"][value="DENIED"]')
        .isChecked(),
    ).toBe(true);
    held = await authenticator.credentials();
    await context.close();

    const refreshed = await postJson(`${cx.host.url}/refresh`, { refreshToken: notesTokens.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.claims.firstName).toEqual({ requirement: 'OPTIONAL', state: 'DENIED' });
    notesTokens = refreshed.body;
    const userinfo = await fetch(`${session.url}/userinfo`, {
      headers: { authorization: `Bearer ${notesTokens.accessToken}` },
    });
    const info = (await userinfo.json()) as Record<string, unknown>;
    expect(info.email).toBe(email);
    expect(info.given_name).toBeUndefined();
  });

  test('reset my identifier: a new subject in that sector, its sessions revoked, the other sector untouched', async () => {
    const { context, page, authenticator } = await openPage();
    await signInToAccount(page);
    const office = page.locator('section.sector', { hasText: 'Lantern Office' });
    await expect(office.locator('.warning').textContent()).resolves.toContain('This cannot be undone.');
    await office.getByLabel('I understand. Give me a new identifier for these applications.').check();
    await office.getByRole('button', { name: 'Reset my identifier' }).click();
    await page.getByText('Done. Lantern Notes, Lantern Tasks now know you by a new identifier').waitFor();
    held = await authenticator.credentials();
    await context.close();

    const current = await cx.infra.db.sectorSubject.findFirstOrThrow({
      where: { sectorId: notes.fixture.sectorId, principalId: accountId, retiredAt: null },
    });
    expect(current.subject).not.toBe(tasksSession.subject);
    expect(current.generation).toBe(2);
    // The reset is in the audit trail, by the person, with the request it came in and the sessions it ended.
    const row = await cx.infra.db.auditEvent.findFirstOrThrow({
      where: { actorId: accountId, action: 'account.reset_subject' },
    });
    expect(row).toMatchObject({ actorKind: 'person', targetType: 'account', targetId: accountId });
    expect(row.sourceAddress).toEqual(expect.any(String));
    expect(row.userAgent).toContain('Chrome');
    expect(row.changes).toMatchObject({
      sectorId: { to: notes.fixture.sectorId },
      revokedSessions: { to: expect.arrayContaining([tasksSession.sid]) },
    });
    // That sector's sessions no longer refresh, at connect or at the session host.
    expect(
      (await postJson(`${cx.host.url}/refresh`, { refreshToken: notesTokens.refreshToken })).body,
    ).toEqual({
      reason: 'RefreshTokenNotFound',
    });
    const tasksRefresh = await refreshAtSession(tasksSession.refreshToken);
    expect(tasksRefresh.status).toBe(401);
    expect(tasksRefresh.body.reason).toBe('RefreshTokenRevoked');
    // The other sector: same subject, still refreshing.
    const arcadeRefresh = await refreshAtSession(arcadeSession.refreshToken);
    expect(arcadeRefresh.status).toBe(200);
    const games = await cx.infra.db.sectorSubject.findFirstOrThrow({
      where: { sectorId: arcade.fixture.sectorId, principalId: accountId, retiredAt: null },
    });
    expect(games.subject).toBe(arcadeSession.subject);
    // The next sign-in to the sector's applications carries the new subject.
    const again = await issueSession(cx.host.deps.issuance, {
      application: (await createApplicationsStore(cx.infra.db).loadApplication({
        anchor: tasks.fixture.anchor,
      }))!,
      principal: { kind: 'ACCOUNT', accountId },
      authMethod: 'PASSKEY_USERNAMELESS',
    });
    expect(again.subject).toBe(current.subject);
  });

  test('two resets at once on two replicas: both rotate, one after the other', async () => {
    const { context, page, authenticator } = await openPage();
    await signInToAccount(page);
    const s = await pageSession(context, page);
    held = await authenticator.credentials();
    await context.close();
    const sector = arcade.fixture.sectorId;
    const answers = await Promise.all(
      [cx.host, cx.replica].map((h) =>
        postForm(`${h.url}/account/sectors/${sector}/reset`, s.cookie, { _csrf: s.csrf, confirm: 'yes' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([303, 303]);
    const rows = await cx.infra.db.sectorSubject.findMany({
      where: { sectorId: sector, principalId: accountId },
      orderBy: { generation: 'asc' },
    });
    expect(rows.map((r) => r.generation)).toEqual([1, 2, 3]);
    expect(rows.filter((r) => r.retiredAt === null)).toHaveLength(1);
    expect((await refreshAtSession(arcadeSession.refreshToken)).status).toBe(401);
  });

  test('a reset whose audit row cannot be written is refused (503) and did not happen', async () => {
    const { context, page, authenticator } = await openPage();
    await signInToAccount(page);
    const s = await pageSession(context, page);
    held = await authenticator.credentials();
    await context.close();
    const sector = arcade.fixture.sectorId;
    const generations = () =>
      cx.infra.db.sectorSubject.count({ where: { sectorId: sector, principalId: accountId } });
    const before = await generations();
    // Only this person's rows are refused: other tests share the database.
    const fn = `refuse_${accountId.replaceAll('-', '')}`;
    await cx.infra.db.$executeRawUnsafe(`
      CREATE FUNCTION ${fn}() RETURNS trigger AS $$ BEGIN
        IF NEW.actor_id = '${accountId}' THEN RAISE EXCEPTION 'audit refused by the test'; END IF;
        RETURN NEW; END $$ LANGUAGE plpgsql`);
    await cx.infra.db.$executeRawUnsafe(
      `CREATE TRIGGER ${fn} BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    );
    try {
      const answer = await postForm(`${cx.host.url}/account/sectors/${sector}/reset`, s.cookie, {
        _csrf: s.csrf,
        confirm: 'yes',
      });
      expect(answer.status).toBe(503);
      expect(await generations()).toBe(before);
    } finally {
      await cx.infra.db.$executeRawUnsafe(`DROP TRIGGER ${fn} ON audit_events`);
      await cx.infra.db.$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
    }
  });

  test('add a passkey (the owner is mailed), rename it, remove the old one, never the last', async () => {
    const { context, page, authenticator } = await openPage();
    await signInToAccount(page);
    // The first passkey stays with the person; this authenticator makes a second one (as a security key would).
    const first = held[0]!;
    await authenticator.remove(first.credentialId);
    const notices = mailsTo(cx.mailbox, email, NOTICE).length;
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Your new passkey is added. We emailed you about it.').waitFor();
    const mail = await waitForMail(cx.mailbox, email, NOTICE);
    expect(mailsTo(cx.mailbox, email, NOTICE)).toHaveLength(notices + 1);
    expect(mail.subject).toBe('A passkey was added to your account');
    expect(mail.text).toContain(`${cx.host.url}/account`);
    expect(mail.text).toMatch(/from Chrome \(headless\) \d+ on Linux/);
    const second = (await authenticator.credentials())[0]!;
    expect(await page.locator('li.passkey').count()).toBe(2);
    await expect(
      cx.infra.db.auditEvent.count({ where: { actorId: accountId, action: 'passkey.add' } }),
    ).resolves.toBe(1);
    await shoot(page, '22-account-two-passkeys.en-US');

    // Rename: markup is shown as text.
    const item = page.locator('li.passkey').nth(1);
    await item.getByLabel('Name of this passkey').fill('<b>Work key</b>');
    await item.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('The passkey is renamed.').waitFor();
    expect(await page.locator('li.passkey').nth(1).locator('.passkey-name').textContent()).toBe(
      '<b>Work key</b>',
    );
    expect(await page.locator('li.passkey b').count()).toBe(0);
    await page.locator('li.passkey').nth(1).getByLabel('Name of this passkey').fill('   ');
    await page.locator('li.passkey').nth(1).getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Give the passkey a name of 1 to 64 characters.').waitFor();

    // Remove the first passkey; the last one left has no Remove button, and a forged removal is refused.
    await page.locator('li.passkey').first().getByRole('button', { name: 'Remove' }).click();
    await page.getByText('The passkey is removed: it can no longer sign in').waitFor();
    expect(await page.locator('li.passkey').count()).toBe(1);
    const removal = await cx.infra.db.auditEvent.findFirstOrThrow({
      where: { actorId: accountId, action: 'passkey.remove' },
    });
    expect(removal).toMatchObject({ actorKind: 'person', targetId: accountId });
    expect(removal.changes).toMatchObject({ passkeyId: { to: null }, revokedSessions: { from: null } });
    expect(await page.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    await page.getByText('This is your only passkey, so it cannot be removed.').waitFor();
    await page.goto(`${cx.host.url}/account?lang=zh-CN`);
    await shoot(page, '23-account-one-passkey.zh-CN');
    await page.goto(`${cx.host.url}/account?lang=en-US`);
    const s = await pageSession(context, page);
    const last = await cx.infra.db.passkey.findFirstOrThrow({ where: { accountId } });
    const forged = await postForm(`${cx.host.url}/account/passkeys/${last.id}/remove`, s.cookie, {
      _csrf: s.csrf,
    });
    expect(forged.status).toBe(303);
    expect(await cx.infra.db.passkey.count({ where: { accountId } })).toBe(1);
    await page.goto(`${cx.host.url}/account`);
    await page.getByText('You cannot remove your last passkey.').waitFor();
    held = [second];
    await context.close();

    // The removed passkey no longer signs in.
    const stale = await openPage();
    await stale.authenticator.remove(second.credentialId);
    await stale.authenticator.add(first);
    await stale.page.goto(`${cx.host.url}/account`);
    const refused = stale.page.waitForResponse((r) => r.url().endsWith('/account/passkey/authentication'));
    await stale.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect((await refused).status()).toBe(401);
    await stale.context.close();
  });

  test('removing a passkey ends the other sessions signed in with it; a disabled account is signed out', async () => {
    // An application session from before: adding a passkey leaves it valid, removing one makes it stale.
    const app = await issueSession(cx.host.deps.issuance, {
      application: (await createApplicationsStore(cx.infra.db).loadApplication({
        anchor: tasks.fixture.anchor,
      }))!,
      principal: { kind: 'ACCOUNT', accountId },
      authMethod: 'PASSKEY_USERNAMELESS',
    });
    // The person adds a third passkey from session A, then a second browser (B) signs in with it.
    const a = await openPage();
    await signInToAccount(a.page);
    const own = (await a.authenticator.credentials())[0]!;
    await a.authenticator.remove(own.credentialId);
    await a.page.getByRole('button', { name: 'Add a passkey' }).click();
    await a.page.getByText('Your new passkey is added. We emailed you about it.').waitFor();
    const third = (await a.authenticator.credentials())[0]!;
    await a.authenticator.remove(third.credentialId);
    await a.authenticator.add(own);
    held = [third];
    const kept = await refreshAtSession(app.refreshToken);
    expect(kept.status).toBe(200);
    const b = await openPage();
    await signInToAccount(b.page);
    // A removes it: B's next request finds itself signed out; A goes on.
    const item = a.page.locator('li.passkey').nth(1);
    await item.getByRole('button', { name: 'Remove' }).click();
    await a.page.getByText('The passkey is removed: it can no longer sign in').waitFor();
    await b.page.goto(`${cx.host.url}/account`);
    await b.page.getByText('the passkey you signed in with was removed').waitFor();
    expect(await b.page.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(1);
    await b.context.close();
    // Issue 25: the removal revoked the account's sessions issued before it at once (its access tokens stop
    // answering too), where the next refresh alone used to find them stale.
    const stale = await refreshAtSession(kept.body.refreshToken);
    expect([stale.status, stale.body.reason]).toEqual([401, 'RefreshTokenRevoked']);

    // An account disabled by the operator: its open session ends at the next request.
    await a.page.goto(`${cx.host.url}/account`);
    await a.page.getByRole('heading', { name: 'Applications you use' }).waitFor();
    await cx.infra.db.account.update({ where: { id: accountId }, data: { status: 'DISABLED' } });
    try {
      await a.page.goto(`${cx.host.url}/account`);
      await a.page.getByText('this account cannot be used right now').waitFor();
      const refused = a.page.waitForResponse((r) => r.url().endsWith('/account/passkey/authentication'));
      await a.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      expect((await refused).status()).toBe(403);
    } finally {
      await cx.infra.db.account.update({ where: { id: accountId }, data: { status: 'ACTIVE' } });
    }
    held = await a.authenticator.credentials();
    await a.context.close();
  });

  test('two removals at once on two replicas never remove the last passkey', async () => {
    // Give the account a second passkey row directly (the ceremony is tested above), then race two removals.
    const only = await cx.infra.db.passkey.findFirstOrThrow({ where: { accountId } });
    const extra = await cx.infra.db.passkey.create({
      data: {
        credentialId: uniqueName('cred'),
        accountId,
        publicKey: Buffer.from('not-used'),
        transports: [],
        userHandle: uniqueName('uh'),
        name: 'Spare',
      },
    });
    const { context, page, authenticator } = await openPage();
    await signInToAccount(page);
    const s = await pageSession(context, page);
    held = await authenticator.credentials();
    await context.close();
    await Promise.all([
      postForm(`${cx.host.url}/account/passkeys/${only.id}/remove`, s.cookie, { _csrf: s.csrf }),
      postForm(`${cx.replica.url}/account/passkeys/${extra.id}/remove`, s.cookie, { _csrf: s.csrf }),
    ]);
    expect(await cx.infra.db.passkey.count({ where: { accountId } })).toBe(1);
    // Whichever survived, put the person's real passkey back as the one left.
    if (await cx.infra.db.passkey.findUnique({ where: { id: extra.id } })) {
      await cx.infra.db.passkey.create({ data: { ...only, id: undefined } });
      await cx.infra.db.passkey.delete({ where: { id: extra.id } });
    }
  });

  test('forms need the CSRF token and this origin; malformed passkey bodies are 400', async () => {
    const { context, page, authenticator } = await openPage();
    await signInToAccount(page);
    const s = await pageSession(context, page);
    held = await authenticator.credentials();
    await context.close();
    const consent = `${cx.host.url}/account/applications/${notes.fixture.anchor}/consent`;
    expect((await postForm(consent, s.cookie, { consent_firstName: 'GRANTED' })).status).toBe(403);
    expect(
      (await postForm(consent, s.cookie, { _csrf: 'x'.repeat(s.csrf.length), consent_firstName: 'GRANTED' }))
        .status,
    ).toBe(403);
    const crossSite = await postForm(
      consent,
      s.cookie,
      { _csrf: s.csrf, consent_firstName: 'GRANTED' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const grant = await cx.infra.db.claimGrant.findFirstOrThrow({
      where: { accountId, applicationId: notes.fixture.applicationId, claim: 'firstName' },
    });
    expect(grant.state).toBe('DENIED');
    // An application the person never used: nothing changes.
    const other = await provisionBackend(cx.infra, cx.host.url, { claims: { firstName: 'OPTIONAL' } });
    await postForm(`${cx.host.url}/account/applications/${other.fixture.anchor}/consent`, s.cookie, {
      _csrf: s.csrf,
      consent_firstName: 'GRANTED',
    });
    expect(
      await cx.infra.db.claimGrant.count({
        where: { accountId, applicationId: other.fixture.applicationId },
      }),
    ).toBe(0);

    const post = (p: string, body: string) =>
      fetch(`${cx.host.url}/account/passkey/${p}`, {
        method: 'POST',
        headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
        body,
      });
    for (const [p, body] of [
      ['authentication', '{}'],
      ['authentication', '{"id":"abc"}'],
      [
        'authentication',
        '{"id":"a","rawId":"a","type":"public-key","response":{"clientDataJSON":"a","authenticatorData":"a","signature":"a"}}',
      ],
      ['registration', '{}'],
      ['registration', '[]'],
      ['registration-options', '{"x":1}'],
      ['authentication', '{not json'],
    ] as const) {
      const res = await post(p, body);
      expect([p, body, res.status]).toEqual([p, body, 400]);
      expect(await res.json()).toEqual({ reason: 'InvalidBody' });
    }
  });

  test('sign out deletes the session: the old cookie is refused', async () => {
    const { context, page, authenticator } = await openPage('zh-CN');
    await page.goto(`${cx.host.url}/account?lang=zh-CN`);
    await page.getByRole('button', { name: '使用通行密钥登录' }).click();
    await page.getByRole('heading', { name: '您使用的应用' }).waitFor();
    const s = await pageSession(context, page);
    await page.getByRole('button', { name: '退出登录' }).click();
    await page.getByText('您已退出登录。').waitFor();
    held = await authenticator.credentials();
    await context.close();
    const old = await fetch(`${cx.host.url}/account`, { headers: { cookie: s.cookie } });
    const text = await old.text();
    expect(text).not.toContain(email);
    expect(old.headers.get('set-cookie')).toMatch(/^connect_account=/);
    const posted = await postForm(`${cx.host.url}/account/sign-out`, s.cookie, { _csrf: s.csrf });
    expect(posted.status).toBe(403);
    // Signing in on the zh-CN page remembered the owner's language for notices.
    expect((await cx.infra.db.account.findUniqueOrThrow({ where: { id: accountId } })).locale).toBe('zh-CN');
  });
});

test('over HTTPS the account cookie carries the __Host- prefix, Secure, HttpOnly, SameSite=Lax, Path=/', async () => {
  expect(accountCookieName('https://connect.example.test')).toBe('__Host-connect_account');
  expect(accountCookieName('http://127.0.0.1:4101')).toBe('connect_account');
  const https = await startConnect(cx.infra, {
    config: {
      connectUrl: 'https://connect.example.test',
      origin: 'https://connect.example.test',
      secureCookies: true,
    },
  });
  try {
    const res = await fetch(`${https.url}/account`);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^__Host-connect_account=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Domain=');
  } finally {
    await https.close();
  }
});
