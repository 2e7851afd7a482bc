// The attack on the OIDC client's ID-token audience check (OIDC Core 3.1.3.7): a token whose aud carries a second,
// untrusted client, with or without azp, is refused; a lone aud of this client is accepted.
import { audienceAccepted } from './oidc.ts';

const ME = `client-${Math.random().toString(36).slice(2)}`;

test('an aud with a second client and no azp is refused', () => {
  expect(audienceAccepted({ aud: [ME, 'other-client'] }, ME)).toBe(false);
});

test('an untrusted extra audience is refused even with azp = this client', () => {
  expect(audienceAccepted({ aud: [ME, 'other-client'], azp: ME }, ME)).toBe(false);
});

test('an azp naming another client is refused', () => {
  expect(audienceAccepted({ aud: ME, azp: 'other-client' }, ME)).toBe(false);
});

test('this client alone, as a string or a one-member array, with or without azp, is accepted', () => {
  expect(audienceAccepted({ aud: ME }, ME)).toBe(true);
  expect(audienceAccepted({ aud: [ME] }, ME)).toBe(true);
  expect(audienceAccepted({ aud: ME, azp: ME }, ME)).toBe(true);
});
