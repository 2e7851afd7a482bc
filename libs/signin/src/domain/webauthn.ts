// The WebAuthn ceremonies of @simplewebauthn/server, loaded on the first passkey request only (passkeys.ts requires
// this file when needed): the library and what it brings (@peculiar/x509, asn1js, tsyringe) cost a host about
// 4 MiB of heap that a process serving only JSON or page renders never uses. `pnpm build` emits this file beside
// main.js (webauthn.js), so its code is not even parsed until then.
export {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
