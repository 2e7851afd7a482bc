// Which sessions each event ends (session-revoked by sid; identifier-changed and account-disabled by subject; the
// rest none), the log keeping the last 50 newest first, and /events escaping what an event carries.
import type { SecurityEvent, SecurityEventName } from '@signin-service/node';
import { EventLog } from './event-log.ts';
import { endedBy, type SessionFacts } from './events.ts';
import { eventsPage } from './pages.ts';

const sessions: SessionFacts[] = [
  { via: 'connect', sub: 'alice', sid: 'sid-a1' },
  { via: 'oidc', sub: 'alice', sid: 'sid-a2', idTokenSid: 'id-a2' },
  { via: 'connect', sub: 'bob', sid: 'sid-b1' },
];

const event = (name: SecurityEventName, more: Partial<SecurityEvent> = {}): SecurityEvent => ({
  name,
  type: `urn:${name}`,
  subject: 'alice',
  jti: 'j',
  iat: 0,
  event: {},
  ...more,
});

const ended = (e: SecurityEvent) => {
  const ends = endedBy(e);
  return ends ? sessions.filter(ends).map((s) => s.sid) : [];
};

test('session-revoked ends its session; identifier-changed and account-disabled every session of the subject', () => {
  expect(ended(event('session-revoked', { sid: 'sid-a2', reason: 'logout' }))).toEqual(['sid-a2']);
  expect(ended(event('session-revoked', { sid: 'unknown' }))).toEqual([]);
  expect(ended(event('session-revoked'))).toEqual([]);
  expect(ended(event('identifier-changed'))).toEqual(['sid-a1', 'sid-a2']);
  expect(ended(event('account-disabled', { subject: 'bob' }))).toEqual(['sid-b1']);
  expect(ended(event('account-enabled'))).toEqual([]);
  expect(ended(event('credential-change'))).toEqual([]);
});

test('the log keeps the last 50, newest first', () => {
  const log = new EventLog();
  for (let i = 0; i < 60; i++) log.add({ name: `e${i}`, receivedAt: new Date(0), signedOut: 0 });
  expect(log.list()).toHaveLength(50);
  expect([log.list()[0]!.name, log.list()[49]!.name]).toEqual(['e59', 'e10']);
});

test('/events escapes every cell', () => {
  const page = eventsPage([
    {
      name: '<b>x</b>',
      receivedAt: new Date(0),
      subject: '<script>alert(1)</script>',
      sid: '"onmouseover="',
      reason: "'&'",
      signedOut: 1,
    },
  ]);
  expect(page).not.toMatch(/<script>|<b>|"onmouseover/);
  expect(page).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  expect(eventsPage([])).toContain('No events yet.');
});
