// The host's OpenAPI document (GET /openapi.json): valid OpenAPI 3.1, every declared route documented, every
// schema compiling. Every other HTTP test checks each answer it receives against it (testkit's contract.ts).
import { declaredRoutes } from '@svc/platform';
import { checkOpenApiDocument, waitUntil } from '@svc/testkit';
import { useConnectHost } from './helpers';

const setup = useConnectHost();

test('GET /openapi.json documents every declared route in valid OpenAPI 3.1', async () => {
  // Ready first: the host's start-up reads (keys, Prisma's query compiler) finish before it closes.
  await waitUntil(async () => (await fetch(`${setup.host.url}/readyz`)).status === 200);
  const doc = await checkOpenApiDocument(setup.host.url, declaredRoutes('connect'));
  expect(doc.paths['/inquiries/{exposureKey}/status'].post.parameters[0].name).toBe('exposureKey');
  // The agreement body of LegalAgreementRequired on /redeem.
  const forbidden = doc.paths['/redeem'].post.responses['403'].content['application/json'].schema.oneOf;
  expect(forbidden.some((s: { required: string[] }) => s.required.includes('agreement'))).toBe(true);
});
