// A failed client authentication costs the same whether the client exists or not (#37): a known client absent from
// the cache and an unknown client id are each one read of PostgreSQL, the same statement, and each one secret hash
// and constant-time comparison, so the time of invalid_client tells nothing about which client ids exist. Asserted by
// the work done (the statements the host sends, the real comparison it calls), not by timing.
import crypto, { randomBytes } from 'node:crypto';
import * as kit from './token-kit';

const h = kit.useOidcHost();

/** The statements and secret comparisons one refused /token costs, with the client cache emptied first. */
async function costOf(fields: Record<string, string>, basic?: [string, string]) {
  h.deps.ports.clients.clear();
  const compare = jest.spyOn(crypto, 'timingSafeEqual');
  try {
    let res: kit.Answer | undefined;
    const statements = await kit.statementsDuring(h, async () => {
      res = await kit.postForm(h, { grant_type: 'authorization_code', code: 'x', ...fields }, { basic });
    });
    expect([res!.status, res!.body.error]).toEqual([401, 'invalid_client']);
    return { statements, comparisons: compare.mock.calls.length };
  } finally {
    compare.mockRestore();
  }
}

const unknownId = () => `rp-${randomBytes(8).toString('hex')}`;

test('Basic: a known client with a wrong secret costs what an unknown client costs', async () => {
  const rp = await kit.provisionRp(h, { authMethod: 'client_secret_basic' });
  const known = await costOf({}, [rp.client.clientId, 'not-the-secret']);
  const unknown = await costOf({}, [unknownId(), 'not-the-secret']);
  expect(known.statements).toHaveLength(1);
  expect(unknown).toEqual(known);
  expect(known.comparisons).toBe(1);
});

test('post: a known client with a wrong secret, or another method, costs what an unknown client costs', async () => {
  const rp = await kit.provisionRp(h, { authMethod: 'client_secret_post' });
  const wrong = await costOf({ client_id: rp.client.clientId, client_secret: 'not-the-secret' });
  const unknown = await costOf({ client_id: unknownId(), client_secret: 'not-the-secret' });
  const basicRp = await kit.provisionRp(h, { authMethod: 'client_secret_basic' });
  const otherMethod = await costOf({ client_id: basicRp.client.clientId, client_secret: 'not-the-secret' });
  expect(wrong.statements).toHaveLength(1);
  expect(unknown).toEqual(wrong);
  expect(otherMethod).toEqual(wrong);
});

test('none: a confidential client presented without a secret costs what an unknown public client costs', async () => {
  const rp = await kit.provisionRp(h, { authMethod: 'client_secret_basic' });
  const known = await costOf({ client_id: rp.client.clientId });
  const unknown = await costOf({ client_id: unknownId() });
  expect(known.statements).toHaveLength(1);
  expect(unknown).toEqual(known);
});
