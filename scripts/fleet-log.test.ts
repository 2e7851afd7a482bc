// `pnpm start`'s log lines: as the hosts write them when stdout is not a terminal; on a terminal one short line each.
import { fleetLine } from './fleet-log';

const listening = JSON.stringify({
  level: 30,
  time: 1795930694508,
  pid: 7,
  hostname: 'box',
  name: 'session',
  host: 'session',
  port: 4103,
  url: 'http://localhost:4103',
  version: { commit: 'abc', builtAt: null },
  msg: 'session listening at http://localhost:4103/',
});

test('not on a terminal: every line as it is, prefixed', () => {
  expect(fleetLine('session', listening, false)).toBe(`[session] ${listening}`);
  expect(fleetLine('worker', 'plain text', false)).toBe('[worker] plain text');
});

test('on a terminal: the message and a few fields, a level word only from warnings up', () => {
  expect(fleetLine('session', listening, true)).toBe(
    '[session] session listening at http://localhost:4103/ host=session port=4103 url=http://localhost:4103 version={"commit":"abc","builtAt":null}',
  );
  const warn = JSON.stringify({
    level: 40,
    time: 1,
    name: 'oidc',
    msg: 'redis unreachable',
    err: 'ECONNREFUSED',
  });
  expect(fleetLine('oidc', warn, true)).toBe('[oidc] WARN redis unreachable err=ECONNREFUSED');
  const long = JSON.stringify({ level: 50, time: 1, msg: 'failed', detail: 'x'.repeat(500) });
  expect(fleetLine('native', long, true)).toBe(`[native] ERROR failed detail=${'x'.repeat(117)}...`);
});

test('on a terminal, a line that is not a JSON log line is printed as it is', () => {
  for (const line of ['connect host failed to start: DATABASE_URL is not a URL', '{not json', '{"a":1}'])
    expect(fleetLine('connect', line, true)).toBe(`[connect] ${line}`);
});
