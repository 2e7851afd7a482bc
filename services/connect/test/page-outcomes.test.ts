// The page rules behind connect's errand and inquiry routes decide on ports alone: in-memory stores stand in for
// PostgreSQL here, so each outcome the routes render (done, completed, expired, re-authenticate, details, realize
// and return) is pinned without a browser.
import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountProfile, ApplicationContext, IssuancePorts } from '@svc/issuance';
import type { SignedIn } from '@svc/signin';
import { DEFAULT_REQUIREMENTS, kekFromBytes } from '@svc/token-core';
import { errandPage, submitErrandDetails } from '../src/domain/errand-page';
import { inquiryPage } from '../src/domain/inquiry-page';
import type { ConnectPorts, ErrandRow, InquiryRow, InquiryStore } from '../src/domain/ports';

const now = Date.parse('2026-11-26T12:00:00Z');
const kek = kekFromBytes(randomBytes(32));

const app = {
  id: randomUUID(),
  anchor: 'page-outcomes',
  names: { 'en-US': 'Outcomes' },
  defaultLocale: 'en-US',
  claimRequirements: { ...DEFAULT_REQUIREMENTS, firstName: 'REQUIRED' },
} as unknown as ApplicationContext;

function accountOf(status: AccountProfile['status']): AccountProfile {
  return {
    id: randomUUID(),
    status,
    email: 'owner@example.com',
    emailVerified: true,
    givenName: null,
    familyName: null,
    picture: null,
    pictureAnimated: null,
    authorityVersion: 1,
  };
}

function errandPorts(account: AccountProfile, passkeys: number) {
  const completed: string[] = [];
  const ports = {
    errands: {
      byKeyHash: async () => undefined,
      complete: async (id: string) => {
        completed.push(id);
        return true;
      },
    },
    issuance: {
      accounts: {
        loadAccount: async (id: string) => (id === account.id ? account : null),
        loadGrants: async () => ({}),
        currentAuthority: async () => ({ version: account.authorityVersion, resets: 0 }),
      },
    },
    accountPage: { passkeys: async () => Array.from({ length: passkeys }, () => ({})) },
  } as unknown as Pick<ConnectPorts, 'errands' | 'issuance' | 'accountPage'>;
  return { ports, completed };
}

function errandOf(accountId: string, state: string, expiresAt = now + 60_000): ErrandRow {
  return { id: randomUUID(), applicationId: app.id, accountId, state, expiresAt: new Date(expiresAt) };
}

describe('errand page', () => {
  test('completed: done for the flow that completed it, 410 for any other; expired past its time', async () => {
    const account = accountOf('ACTIVE');
    const { ports } = errandPorts(account, 1);
    const done = errandOf(account.id, 'COMPLETED');
    expect(await errandPage(ports, { errand: done, app, flow: { realized: true } }, now)).toEqual({
      show: 'done',
    });
    expect(await errandPage(ports, { errand: done, app, flow: {} }, now)).toEqual({ show: 'completed' });
    const old = errandOf(account.id, 'PENDING', now);
    expect(await errandPage(ports, { errand: old, app, flow: {} }, now)).toEqual({ show: 'expired' });
  });

  test('a disabled account is refused; another account re-authenticates first, by passkey or emailed code', async () => {
    const disabled = accountOf('DISABLED');
    const refused = errandPorts(disabled, 1).ports;
    const errand = errandOf(disabled.id, 'PENDING');
    expect(await errandPage(refused, { errand, app, flow: {} }, now)).toEqual({ show: 'accountUnavailable' });

    const account = accountOf('ACTIVE');
    const mine = errandOf(account.id, 'PENDING');
    const stranger = { accountId: randomUUID() };
    expect(
      await errandPage(errandPorts(account, 1).ports, { errand: mine, app, flow: stranger }, now),
    ).toEqual({
      show: 'reauth',
      hasPasskey: true,
      email: account.email,
    });
    const noPasskey = await errandPage(errandPorts(account, 0).ports, { errand: mine, app, flow: {} }, now);
    expect(noPasskey).toMatchObject({ show: 'reauth', hasPasskey: false });
  });

  test('the errand account sees every claim; its details complete the errand once the gate passes', async () => {
    const account = accountOf('ACTIVE');
    const { ports, completed } = errandPorts(account, 1);
    const errand = errandOf(account.id, 'PENDING');
    const shown = await errandPage(ports, { errand, app, flow: { accountId: account.id } }, now);
    expect(shown.show).toBe('details');
    if (shown.show === 'details') expect(shown.items.map((i) => i.key)).toContain('firstName');

    const page = { errand, app, flowAccountId: account.id };
    expect(await submitErrandDetails(ports, page, now, async () => false)).toBe('saved');
    expect(completed).toEqual([]);
    expect(await submitErrandDetails(ports, page, now, async () => true)).toBe('completed');
    expect(completed).toEqual([errand.id]);
    const other = { ...page, flowAccountId: randomUUID() };
    expect(await submitErrandDetails(ports, other, now, async () => true)).toBe('not_reauthenticated');
  });
});

function inquiryStore(row: InquiryRow): InquiryStore {
  return {
    create: async () => undefined,
    byExposureHash: async () => row,
    byId: async () => row,
    async realize(_id, input) {
      if (row.state !== 'ESTABLISHED') return false;
      Object.assign(row, input, { state: 'REALIZED' });
      return true;
    },
  };
}

function inquiryOf(state: InquiryRow['state'], returnMethods: InquiryRow['constraints']['returnMethods']) {
  return {
    id: randomUUID(),
    applicationId: app.id,
    exposureKeyHash: 'x',
    hiddenKeyHash: 'y',
    confirmationKeyHash: null,
    confirmationKeyEnc: null,
    state,
    constraints: { returnMethods, callbackUrl: 'https://app.example.com/back', ttlLayers: [] },
    accountId: null,
    authMethod: null,
    authTime: null,
    authorityVersion: null,
    expiresAt: new Date(now + 60_000),
  } satisfies InquiryRow;
}

describe('inquiry page', () => {
  const values = { kek, clock: () => now };
  const signedIn = {
    account: accountOf('ACTIVE'),
    authTime: new Date(now),
    authority: { version: 3, resets: 0 },
  } as unknown as SignedIn;
  const portsOf = (row: InquiryRow) => ({
    inquiries: inquiryStore(row),
    issuance: {} as IssuancePorts,
  });

  test('redeemed, expired, or realized by another flow: refused before any sign-in step', async () => {
    const steps = jest.fn(async () => signedIn);
    const page = (row: InquiryRow, realized = false) =>
      inquiryPage(portsOf(row), values, { inquiry: row, exposureKey: 'iqe_k', realized }, steps);
    expect(await page(inquiryOf('REDEEMED', ['REVEAL']))).toEqual({ show: 'completed' });
    expect(await page({ ...inquiryOf('ESTABLISHED', ['REVEAL']), expiresAt: new Date(now) })).toEqual({
      show: 'expired',
    });
    expect(await page(inquiryOf('REALIZED', ['REVEAL']))).toEqual({ show: 'completed' });
    expect(steps).not.toHaveBeenCalled();
  });

  test('a step still owed sends its page; once signed in the inquiry is realized once and the person returns', async () => {
    const row = inquiryOf('ESTABLISHED', ['CALLBACK']);
    const owed = await inquiryPage(
      portsOf(row),
      values,
      { inquiry: row, exposureKey: 'iqe_k', realized: false },
      async () => undefined,
    );
    expect(owed).toEqual({ show: 'step' });
    expect(row.state).toBe('ESTABLISHED');

    const out = await inquiryPage(
      portsOf(row),
      values,
      { inquiry: row, exposureKey: 'iqe_k', realized: false },
      async () => signedIn,
    );
    expect(row).toMatchObject({ state: 'REALIZED', accountId: signedIn.account.id, authorityVersion: 3 });
    expect(out).toMatchObject({ show: 'return', realizedNow: true, back: { to: 'callback' } });
    if (out.show === 'return' && out.back.to === 'callback') {
      const url = new URL(out.back.url);
      expect(url.origin).toBe('https://app.example.com');
      expect(url.searchParams.get('exposureKey')).toBe('iqe_k');
      expect(url.searchParams.get('confirmationKey')).toMatch(/^iqc_/);
    }

    // A second flow loses the realization: nothing to return to.
    const again = await inquiryPage(
      portsOf(row),
      values,
      { inquiry: { ...row, state: 'ESTABLISHED' }, exposureKey: 'iqe_k', realized: false },
      async () => signedIn,
    );
    expect(again).toEqual({ show: 'completed' });
  });
});
