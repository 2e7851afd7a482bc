// The host's OpenAPI document (GET /openapi.json): valid OpenAPI 3.1, every declared route documented, every
// schema compiling. Every other HTTP test checks each answer it receives against it (testkit's contract.ts).
import { declaredRoutes } from '@svc/platform';
import { checkOpenApiDocument, waitUntil } from '@svc/testkit';
import { startDevice } from './support';

test('GET /openapi.json documents every declared route in valid OpenAPI 3.1', async () => {
  const host = await startDevice();
  try {
    // Ready first: the host's start-up reads (keys, Prisma's query compiler) finish before it closes.
    await waitUntil(async () => (await fetch(`${host.url}/readyz`)).status === 200);
    const doc = await checkOpenApiDocument(host.url, declaredRoutes('device'));
    const polls = doc.paths['/device-token'].post.responses;
    expect(polls['400'].content['application/json'].schema.properties.error.enum).toContain('slow_down');
    expect(polls['503'].headers['Retry-After']).toBeDefined();
  } finally {
    await host.close();
  }
});
