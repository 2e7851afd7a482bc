// A software passkey for HTTP attack tests: an ES256 key stored on an account as a discoverable credential,
// and assertions built and signed the way an authenticator does, with the knobs an attacker turns.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { Credential } from './chromium';
import type { TestInfra } from './infra';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

export interface AssertionOptions {
  challenge: string;
  origin: string;
  rpId: string;
  /** The user handle to return: the registered one by default, none when null. */
  userHandle?: string | null;
  crossOrigin?: boolean;
  topOrigin?: string;
}

export interface SoftPasskey {
  credentialId: string;
  userHandle: string;
  assert(o: AssertionOptions): Record<string, unknown>;
  /** The same key as a credential of testkit's virtual authenticator (Chromium), for `rpId`. */
  credential(rpId: string): Credential;
}

/** A P-256 public key as a COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}, CBOR-encoded. */
function coseKeyOf(publicKey: KeyObject) {
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from([0x22, 0x58, 0x20]),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
}

/** Creates the key and registers it on the account (as registration would have stored it). */
export async function softPasskey(infra: TestInfra, accountId: string): Promise<SoftPasskey> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cose = coseKeyOf(publicKey);
  const credentialId = randomBytes(16).toString('base64url');
  const userHandle = randomBytes(32).toString('base64url');
  await infra.db.passkey.create({
    data: { credentialId, accountId, publicKey: cose, counter: 0n, transports: ['internal'], userHandle },
  });
  let counter = 0;
  return {
    credentialId,
    userHandle,
    credential: (rpId) => ({
      credentialId: Buffer.from(credentialId, 'base64url').toString('base64'),
      isResidentCredential: true,
      rpId,
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      userHandle: Buffer.from(userHandle, 'base64url').toString('base64'),
      signCount: 0,
    }),
    assert(o) {
      counter += 1;
      const clientData: Record<string, unknown> = {
        type: 'webauthn.get',
        challenge: o.challenge,
        origin: o.origin,
        crossOrigin: o.crossOrigin ?? false,
      };
      if (o.topOrigin) clientData.topOrigin = o.topOrigin;
      const clientDataJSON = Buffer.from(JSON.stringify(clientData));
      const count = Buffer.alloc(4);
      count.writeUInt32BE(counter);
      // rpIdHash, flags UP|UV, signature counter.
      const authenticatorData = Buffer.concat([sha256(o.rpId), Buffer.from([0x05]), count]);
      const signature = sign(
        'sha256',
        Buffer.concat([authenticatorData, sha256(clientDataJSON)]),
        privateKey,
      );
      const handle = o.userHandle === undefined ? userHandle : o.userHandle;
      return {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: clientDataJSON.toString('base64url'),
          authenticatorData: authenticatorData.toString('base64url'),
          signature: signature.toString('base64url'),
          ...(handle === null ? {} : { userHandle: handle }),
        },
      };
    },
  };
}

/**
 * A registration response for `challenge` (the registration options' challenge) as an authenticator with attestation
 * `none` makes it: a new ES256 key, user present and verified, for the account page's (or a sign-up's) add step.
 */
export function softRegistration(o: { challenge: string; origin: string; rpId: string }) {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cose = coseKeyOf(publicKey);
  const credentialId = randomBytes(16);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(credentialId.length);
  // rpIdHash, flags UP|UV|AT, counter 0, AAGUID (zeros), credential id length, id, COSE key.
  const authData = Buffer.concat([
    sha256(o.rpId),
    Buffer.from([0x45]),
    Buffer.alloc(4),
    Buffer.alloc(16),
    idLength,
    credentialId,
    cose,
  ]);
  const authDataLength = Buffer.alloc(2);
  authDataLength.writeUInt16BE(authData.length);
  // CBOR {"fmt": "none", "attStmt": {}, "authData": bytes}.
  const attestationObject = Buffer.concat([
    Buffer.from([0xa3, 0x63]),
    Buffer.from('fmt'),
    Buffer.from([0x64]),
    Buffer.from('none'),
    Buffer.from([0x67]),
    Buffer.from('attStmt'),
    Buffer.from([0xa0, 0x68]),
    Buffer.from('authData'),
    Buffer.from([0x59]),
    authDataLength,
    authData,
  ]);
  const clientDataJSON = Buffer.from(
    JSON.stringify({ type: 'webauthn.create', challenge: o.challenge, origin: o.origin, crossOrigin: false }),
  );
  const id = credentialId.toString('base64url');
  return {
    credentialId: id,
    body: {
      id,
      rawId: id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
    },
  };
}
