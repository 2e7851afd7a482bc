// The hosts' logger redacts every credential member at the top level of a log line and one or two levels down
// (a request's headers, an error's cause), and leaves everything else as it was.
import { createLogger } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('logger-test', {
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

const SECRETS = {
  accessToken: 'eyJ.access.sig',
  refreshToken: 'eyJ.refresh.sig',
  accessKeySecret: `acs_t_${'a'.repeat(64)}`,
  clientSecret: 'client-secret-value',
  hiddenKey: 'hidden-key-value',
  confirmationKey: 'confirmation-key-value',
  deviceCode: `dvc_${'b'.repeat(64)}`,
  errandKey: 'ernd_errand-key-value',
  platformTicketHex: 'c0ffee',
  authorization: 'ClientAuth eyJ.client.sig',
  cookie: 'connect_flow=abc',
};

test.each([
  ['at the top level', (s: object) => s, (l: Record<string, unknown>) => l],
  ['one level down', (s: object) => ({ body: s }), (l: Record<string, unknown>) => l.body],
  [
    'two levels down',
    (s: object) => ({ req: { headers: s } }),
    (l: Record<string, unknown>) => (l.req as Record<string, unknown>).headers,
  ],
])('credential members are redacted %s; other members are kept', (_where, wrap, unwrap) => {
  const { logger, lines } = capture();
  logger.warn({ ...wrap({ ...SECRETS, applicationAnchor: 'lantern-notes' }), status: 401 }, 'refused');
  const logged = unwrap(lines[0]!) as Record<string, unknown>;
  for (const name of Object.keys(SECRETS)) expect([name, logged[name]]).toEqual([name, '[redacted]']);
  expect(logged.applicationAnchor).toBe('lantern-notes');
  expect(lines[0]!.status).toBe(401);
  const text = JSON.stringify(lines[0]);
  for (const value of Object.values(SECRETS)) expect(text).not.toContain(value);
});
