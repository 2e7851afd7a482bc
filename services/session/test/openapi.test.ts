// The host's OpenAPI document (GET /openapi.json): valid OpenAPI 3.1, every declared route documented, every
// schema compiling. Every other HTTP test checks each answer it receives against it (testkit's contract.ts).
import { declaredRoutes } from '@svc/platform';
import { checkOpenApiDocument, waitUntil } from '@svc/testkit';
import { startSessionHost } from './support';

test('GET /openapi.json documents every declared route in valid OpenAPI 3.1', async () => {
  const host = await startSessionHost();
  try {
    // Ready first: the host's start-up reads (keys, Prisma's query compiler) finish before it closes.
    await waitUntil(async () => (await fetch(`${host.url}/readyz`)).status === 200);
    const doc = await checkOpenApiDocument(host.url, declaredRoutes('session'));
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/refresh', '/applications/{anchor}/jwks.json']),
    );
    // The error table: the empty 401 of a lost rotation race beside the reason bodies.
    expect(doc.paths['/refresh'].post.responses['401']['x-empty-body-reasons']).toEqual([
      'RefreshTokenRotationRaceLost',
    ]);
    expect(doc.paths['/refresh'].post.responses['403'].content['application/json'].schema.oneOf).toHaveLength(
      3,
    );
  } finally {
    await host.close();
  }
});
