// How a person proved themselves in a sign-in flow, as RFC 8176 Authentication Method Reference values (`amr`)
// and an OpenID EAP ACR value (`acr`), for hosts that state it (the OIDC host's ID tokens and its sign-in).
//
// - A passkey sign-in (a WebAuthn assertion; the pages require user verification, so the authenticator checked
//   presence and a PIN or biometric): `user` (user-presence test), `mfa` (possession of the authenticator plus the
//   verified PIN or biometric: two factors; which one WebAuthn does not say, so neither `pin` nor `fpt`), and the
//   key: `hwk` (hardware-secured key) when the credential is device-bound (backup-ineligible: the key never leaves
//   the authenticator), else `pop` (proof of possession of a key that may be synced). `acr`: `phrh`
//   (phishing-resistant, hardware-protected) for a device-bound passkey, else `phr` (phishing-resistant).
// - An email-code sign-up (or a new passkey added through an emailed code, or a returning person signing in by the
//   code alone): the code proved the address, the
//   passkey made then proves nothing yet: `otp` (a one-time code), and no `acr` (neither EAP value applies).
// Nothing here is attested (attestation `none`): the values state what the authenticator reported.

/** `amr` and, when one applies, `acr` of one authentication. */
export interface AuthReferences {
  amr: string[];
  acr?: string;
}

/** A passkey sign-in with user verification; `deviceBound` when the credential is not backup-eligible. */
export function passkeySignInReferences(deviceBound: boolean): AuthReferences {
  return deviceBound
    ? { amr: ['hwk', 'user', 'mfa'], acr: 'phrh' }
    : { amr: ['pop', 'user', 'mfa'], acr: 'phr' };
}

/** An email-code sign-up followed by passkey registration (the code is what authenticated the person). */
export function emailCodeReferences(): AuthReferences {
  return { amr: ['otp'] };
}
