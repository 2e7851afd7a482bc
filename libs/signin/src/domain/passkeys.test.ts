// Registration options pin the passkey algorithms (EdDSA, ES256, RS256) whatever the runtime would add by default.
import { PASSKEY_ALGORITHMS, registrationOptions } from './passkeys';

test('registration offers exactly EdDSA, ES256 and RS256, in that order of preference', async () => {
  const { options, userHandle } = await registrationOptions(
    { rpId: 'example.com', origin: 'https://example.com', rpName: 'Sign-in service' },
    'ada@example.com',
    [],
  );
  expect(options.pubKeyCredParams).toEqual([
    { type: 'public-key', alg: -8 },
    { type: 'public-key', alg: -7 },
    { type: 'public-key', alg: -257 },
  ]);
  expect(PASSKEY_ALGORITHMS).toEqual([-8, -7, -257]);
  // The user handle is 32 random bytes, and the options carry it.
  expect(Buffer.from(userHandle, 'base64url')).toHaveLength(32);
  expect(options.user.id).toBe(userHandle);
});
