// The host's OpenAPI document (GET /openapi.json): valid OpenAPI 3.1, every declared route documented, every
// schema compiling. Every other HTTP test checks each answer it receives against it (testkit's contract.ts).
import { declaredRoutes } from '@svc/platform';
import { checkOpenApiDocument, waitUntil } from '@svc/testkit';
import { openInfra, startNative } from './helpers';

test('GET /openapi.json documents every declared route in valid OpenAPI 3.1', async () => {
  const infra = openInfra();
  const host = await startNative(infra);
  try {
    // Ready first: the host's start-up reads (keys, Prisma's query compiler) finish before it closes.
    await waitUntil(async () => (await fetch(`${host.url}/readyz`)).status === 200);
    const doc = await checkOpenApiDocument(host.url, declaredRoutes('native'));
    const ticket = doc.paths['/direct-issue/platform-ticket'].post.responses;
    expect(ticket['429'].headers['Retry-After']).toBeDefined();
    expect(ticket['409'].content['application/json'].schema.properties.reason.enum).toEqual(
      expect.arrayContaining([
        'ReplayProtectionAlreadySeen',
        'AuthorizationArtifactStale',
        'LegalAgreementRevisionMismatch',
      ]),
    );
    // /errand: status-only failures.
    expect(doc.paths['/errand'].post.responses['401'].content).toBeUndefined();
  } finally {
    await host.close();
    await infra.close();
  }
});
