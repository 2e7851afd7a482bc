// RS256 signature checks over either crypto a runtime has: node:crypto's synchronous verify where it exists (Node,
// Bun, Deno; an RSA-2048 verify is ~20 µs there, less than a WebCrypto hand-off to the thread pool and back), else
// WebCrypto's subtle.verify (browsers, edge runtimes).

export interface VerificationKey {
  verify(
    signingInput: Uint8Array<ArrayBuffer>,
    signature: Uint8Array<ArrayBuffer>,
  ): boolean | Promise<boolean>;
}

interface NodeCrypto {
  createPublicKey(opts: { key: object; format: 'jwk' }): unknown;
  verify(algorithm: string, data: Uint8Array, key: unknown, signature: Uint8Array): boolean;
}

let nodeCrypto: Promise<NodeCrypto | undefined> | undefined;

/** node:crypto when the runtime has it; loaded once, lazily, so the package imports anywhere. */
function loadNodeCrypto(): Promise<NodeCrypto | undefined> {
  // A specifier in a variable keeps bundlers for other runtimes from trying to resolve it.
  const specifier = 'node:crypto';
  nodeCrypto ??= (import(specifier) as Promise<NodeCrypto>).then(
    (m) => (typeof m.createPublicKey === 'function' && typeof m.verify === 'function' ? m : undefined),
    () => undefined,
  );
  return nodeCrypto;
}

const RSASSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/** Imports an RSA public JWK for RS256; `webCryptoOnly` skips node:crypto (for runtimes and tests). */
export async function importRsaKey(
  jwk: { kty: 'RSA'; n: string; e: string },
  webCryptoOnly = false,
): Promise<VerificationKey> {
  const node = webCryptoOnly ? undefined : await loadNodeCrypto();
  if (node) {
    const key = node.createPublicKey({ key: jwk, format: 'jwk' });
    return {
      verify(signingInput, signature) {
        try {
          return node.verify('sha256', signingInput, key, signature);
        } catch {
          return false;
        }
      },
    };
  }
  const key = await crypto.subtle.importKey('jwk', { ...jwk, alg: 'RS256', ext: true }, RSASSA, false, [
    'verify',
  ]);
  return {
    async verify(signingInput, signature) {
      try {
        return await crypto.subtle.verify(RSASSA.name, key, signature, signingInput);
      } catch {
        return false;
      }
    },
  };
}
