// The host's OpenAPI document (GET /openapi.json): valid OpenAPI 3.1, every declared route documented, every
// schema compiling. Every other HTTP test checks each answer it receives against it (testkit's contract.ts).
import { declaredRoutes } from '@svc/platform';
import { checkOpenApiDocument, waitUntil } from '@svc/testkit';
import { startOidcHost } from './token-kit';

test('GET /openapi.json documents every declared route in valid OpenAPI 3.1', async () => {
  const host = await startOidcHost();
  try {
    // Ready first: the host's start-up reads (keys, Prisma's query compiler) finish before it closes.
    await waitUntil(async () => (await fetch(`${host.url}/readyz`)).status === 200);
    const doc = await checkOpenApiDocument(host.url, declaredRoutes('oidc'));
    expect(doc.paths['/token'].post.requestBody.content['application/x-www-form-urlencoded']).toBeDefined();
    expect(doc.paths['/end-session'].get.responses['200'].content['text/html']).toBeDefined();
    // The address limit: an error page with Retry-After on both methods, never a redirect.
    for (const method of ['get', 'post']) {
      const limited = doc.paths['/authorize'][method].responses['429'];
      expect(limited.content['text/html']).toBeDefined();
      expect(limited.headers['Retry-After']).toBeDefined();
    }
  } finally {
    await host.close();
  }
});
