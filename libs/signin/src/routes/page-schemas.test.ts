// The passkey calls' documented answers hold what @simplewebauthn/server makes: the options of both ceremonies
// pass their strict wire shapes (libs/platform wire.ts), so the contract checker can judge every member.
import { PasskeyCreationOptions, PasskeyNext, PasskeyRequestOptions } from '@svc/platform';
import { authenticationOptions, registrationOptions } from '../domain/passkeys';

const rp = { rpId: 'localhost', origin: 'http://localhost:3000', rpName: 'Sign-in' };

test('sign-in options are PasskeyRequestOptions', async () => {
  const options = await authenticationOptions(rp);
  expect(PasskeyRequestOptions.safeParse(JSON.parse(JSON.stringify(options))).error).toBeUndefined();
});

test('registration options, with passkeys to exclude, are PasskeyCreationOptions', async () => {
  const { options } = await registrationOptions(rp, 'grace@example.test', [
    { credentialId: 'AAECAw', transports: ['internal', 'hybrid'] },
  ]);
  expect(PasskeyCreationOptions.safeParse(JSON.parse(JSON.stringify(options))).error).toBeUndefined();
  // A member the shape does not know fails it (strict): the document describes every member.
  expect(PasskeyCreationOptions.safeParse({ ...options, extra: 1 }).success).toBe(false);
});

test('a finished ceremony leads to a path on the same host only', () => {
  expect(PasskeyNext.safeParse({ next: '/device' }).success).toBe(true);
  for (const next of ['https://evil.example/', '//evil.example/', 'device']) {
    expect(PasskeyNext.safeParse({ next }).success).toBe(false);
  }
});
