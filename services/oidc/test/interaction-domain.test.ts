// The interaction pages' decisions (domain/interaction.ts) over in-memory ports, no database, Redis or browser:
// prompt=none without a sign-in answers login_required once without running the steps; a held sign-in is offered to
// the steps once; an expired request's cancel answers its client once, and never a client that dropped the URI.
import type { ApplicationContext } from '@svc/issuance';
import { type FlowState, PageError } from '@svc/signin';
import {
  cancelInteraction,
  type ExpiredInteraction,
  openInteraction,
  type ParkedInteraction,
  viewInteraction,
} from '../src/domain/interaction';
import type {
  ExpiredReturn,
  Interaction,
  InteractionStore,
  OidcClient,
  OidcDomainDeps,
  SignInSession,
} from '../src/domain/ports';

const REDIRECT = 'https://rp.example/cb';

function client(over: Partial<OidcClient> = {}): OidcClient {
  return {
    id: 'row-1',
    clientId: 'rp',
    secretHash: null,
    authMethod: 'none',
    applicationId: 'app-1',
    applicationAnchor: 'anchor',
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    requirePar: false,
    requireDpop: false,
    webOrigins: [],
    active: true,
    ...over,
  };
}

function request(over: Partial<Interaction> = {}): Interaction {
  return {
    clientId: 'rp',
    redirectUri: REDIRECT,
    responseType: 'code',
    responseMode: 'query',
    scopes: ['openid'],
    state: 'st',
    prompt: [],
    createdAt: 0,
    ...over,
  };
}

/** One parked request and its return record in memory, each taken at most once, as the Redis store does. */
function memoryInteractions(parked: Interaction | undefined, back?: ExpiredReturn) {
  let current = parked;
  let record = back;
  const flags: Record<string, boolean | undefined>[] = [];
  const store: InteractionStore = {
    park: async () => 'uid',
    get: async () => current,
    flag: async (_uid, f) => {
      flags.push(f);
      return current !== undefined;
    },
    take: async () => {
      const taken = current;
      current = undefined;
      record = undefined;
      return taken;
    },
    expiredReturn: async () => (current ? undefined : record),
    takeExpiredReturn: async () => {
      const taken = record;
      record = undefined;
      return taken;
    },
  };
  return { store, flags };
}

const app = { id: 'app-1', authRules: [], returnRules: [] } as unknown as ApplicationContext;

function deps(interactions: InteractionStore, c: OidcClient, session?: SignInSession): OidcDomainDeps {
  return {
    clock: () => 1_700_000_000_000,
    ports: {
      interactions,
      clients: { get: async (id: string) => (id === c.clientId ? c : undefined) },
      applications: { loadApplication: async () => app },
      signInSessions: { read: async (id?: string) => (id === 'cookie' ? session : undefined) },
    },
  } as unknown as OidcDomainDeps;
}

const onFlow = <T extends ParkedInteraction | ExpiredInteraction>(opened: T) => {
  const flow: FlowState = { csrf: 'x' };
  let saves = 0;
  return Object.assign(opened, {
    flow,
    save: async () => {
      saves += 1;
    },
    saves: () => saves,
  });
};

test('prompt=none without a sign-in: login_required to the client once, the steps never run', async () => {
  const { store, flags } = memoryInteractions(request({ prompt: ['none'] }));
  const d = deps(store, client());
  const p = onFlow(await openInteraction(d, { uid: 'uid', signInId: undefined, orExpired: true }));
  const next = jest.fn();
  const out = await viewInteraction(d, p, { next, keepSignIn: jest.fn() });
  expect(out).toEqual({
    kind: 'answer',
    target: { redirectUri: REDIRECT, responseMode: 'query', state: 'st' },
    answer: { error: expect.objectContaining({ error: 'login_required' }) },
  });
  expect(next).not.toHaveBeenCalled();
  expect(flags).toEqual([{ freshLogin: true }]);
  expect(p.flow.realized).toBe(true);
  expect(p.saves()).toBe(1);
  // The flow is finished: a second view of the same page is the completed page, not a second answer.
  await expect(viewInteraction(d, p, { next, keepSignIn: jest.fn() })).rejects.toMatchObject({
    key: 'completed',
  });
});

test('a held sign-in is offered to the steps once, then the steps decide', async () => {
  const session: SignInSession = {
    accountId: 'acc-1',
    authTime: 1_699_999_000,
    amr: ['hwk'],
    authority: { version: 3 } as SignInSession['authority'],
    handle: 'h',
  };
  const { store, flags } = memoryInteractions(request());
  const d = deps(store, client(), session);
  const p = onFlow(await openInteraction(d, { uid: 'uid', signInId: 'cookie', orExpired: false }));
  expect(p.kind === 'parked' && p.held?.id).toBe('cookie');
  const out = await viewInteraction(d, p, { next: async () => undefined, keepSignIn: jest.fn() });
  expect(out).toEqual({ kind: 'steps' });
  expect(p.flow).toMatchObject({ accountId: 'acc-1', authTime: 1_699_999_000_000, amr: ['hwk'] });
  expect(flags).toEqual([{ freshLogin: false }, { heldOffered: true }]);
});

test('an expired request: its cancel answers the client once; a client without the URI is never answered', async () => {
  const back: ExpiredReturn = { clientId: 'rp', redirectUri: REDIRECT, responseMode: 'query', expiredAt: 1 };
  const first = memoryInteractions(undefined, back);
  const d = deps(first.store, client());
  const p = onFlow(await openInteraction(d, { uid: 'uid', signInId: undefined, orExpired: true }));
  expect(p.kind).toBe('expired');
  expect(await viewInteraction(d, p, { next: jest.fn(), keepSignIn: jest.fn() })).toEqual({
    kind: 'expired',
  });
  expect(await cancelInteraction(d, p)).toEqual({
    target: { redirectUri: REDIRECT, responseMode: 'query', state: undefined },
    answer: { error: { error: 'access_denied', description: 'The sign-in request expired.' } },
  });
  await expect(cancelInteraction(d, p)).rejects.toBeInstanceOf(PageError);

  // Without orExpired (the sign-in steps' posts) an expired request is simply gone.
  const gone = memoryInteractions(undefined, back);
  await expect(
    openInteraction(deps(gone.store, client()), { uid: 'uid', signInId: undefined, orExpired: false }),
  ).rejects.toMatchObject({ key: 'expired' });

  // The client dropped the redirect URI since: no page offers to return there.
  const dropped = memoryInteractions(undefined, back);
  await expect(
    openInteraction(deps(dropped.store, client({ redirectUris: ['https://rp.example/other'] })), {
      uid: 'uid',
      signInId: undefined,
      orExpired: true,
    }),
  ).rejects.toMatchObject({ key: 'expired' });
});
