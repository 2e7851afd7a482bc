// A valid /device-authorize followed on the same connection by bytes that are no request (`1\r\n\r\n`): the device
// gets its codes and then the connection closes, and nothing is logged at error level. Before, Node answered the
// stray bytes 400 and destroyed the socket at once, so the handler read the client address of a closed socket
// (undefined): the per-address rate limit threw a TypeError, an error-level line with its stack.
import { captureLogger, exchangeRaw, requestBytes } from '@svc/testkit';
import { type DeviceHarness, provisionDeviceApp, startDevice } from './support';

const log = captureLogger('device');
let h: DeviceHarness;
beforeAll(async () => {
  h = await startDevice({}, undefined, { logger: log.logger });
});
afterAll(() => h.close());

test('a /device-authorize followed by stray bytes is answered with its codes, nothing logged as an error', async () => {
  const app = await provisionDeviceApp(h.infra);
  const body = JSON.stringify({ applicationAnchor: app.anchor });
  const request = requestBytes(
    `${h.url}/device-authorize`,
    'POST',
    { 'Content-Type': 'application/json' },
    body,
  );
  const from = log.lines.length;
  const { text, statuses } = await exchangeRaw(h.url, `${request}1\r\n\r\n`);
  expect(statuses).toEqual([200]);
  expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({
    applicationAnchor: app.anchor,
  });
  const errors = log.lines.slice(from).filter((l) => (l.level as number) >= 50);
  expect(errors).toEqual([]);
});
