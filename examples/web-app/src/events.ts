// What the example does with what the service tells it (docs/events.md): the security events pushed to
// POST /security-events (the package's createEventReceiver) and, for its OIDC client, the back-channel logout tokens
// posted to POST /oidc/backchannel-logout (oidc.verifyLogoutToken). The last 50 are kept for GET /events, and the
// sessions an event ends are deleted from the server-side session map, so that browser's next /me is signed out.
import {
  createEventReceiver,
  LogoutTokenError,
  type OidcClient,
  type SecurityEvent,
} from '@signin-service/node';
import express, { type Express } from 'express';
import type { ExampleConfig } from './config.ts';
import type { EventLog } from './event-log.ts';
import { eventsPage } from './pages.ts';

/** What the example keeps of a sign-in to find it again when an event names it. */
export interface SessionFacts {
  via: 'connect' | 'oidc';
  /** The access token's pairwise subject. */
  sub: string;
  /** The access token's `sid` (stable across refreshes): the sid of a session-revoked event. */
  sid: string;
  /** OIDC sign-ins: the ID token's `sid`, which a back-channel logout token names. */
  idTokenSid?: string;
}

/** Deletes every session `ends` matches; how many. */
function signOut<S extends SessionFacts>(sessions: Map<string, S>, ends: (s: S) => boolean): number {
  let count = 0;
  for (const [id, signed] of sessions) {
    if (!ends(signed)) continue;
    sessions.delete(id);
    count += 1;
  }
  return count;
}

/** The sessions a security event ends: its session, or every session of the person it names. */
export function endedBy(event: SecurityEvent): ((s: SessionFacts) => boolean) | undefined {
  switch (event.name) {
    case 'session-revoked':
      return event.sid ? (s) => s.sid === event.sid : undefined;
    case 'identifier-changed':
    case 'account-disabled':
      return (s) => s.sub === event.subject;
    default:
      return undefined;
  }
}

export function mountEvents<S extends SessionFacts>(
  app: Express,
  c: { config: ExampleConfig; sessions: Map<string, S>; oidc?: OidcClient; log: EventLog },
): void {
  const { sessions, log } = c;

  // The receiver reads the body itself (no body parser on this path), verifies the SET against this application's
  // JWK Set, drops a jti it has seen, and answers 202, or 400 for anything forged (nothing is logged then).
  app.post(
    '/security-events',
    createEventReceiver({
      sessionUrl: c.config.sessionUrl,
      applicationAnchor: c.config.applicationAnchor,
      issuer: c.config.issuer,
      onEvent(event) {
        const ends = endedBy(event);
        log.add({
          name: event.name ?? event.type,
          receivedAt: new Date(),
          subject: event.subject,
          sid: event.sid,
          reason: event.reason,
          signedOut: ends ? signOut(sessions, ends) : 0,
        });
      },
    }),
  );

  app.post(
    '/oidc/backchannel-logout',
    express.urlencoded({ extended: false, limit: '64kb' }),
    async (req, res, next) => {
      res.set('cache-control', 'no-store');
      if (!c.oidc) {
        res.status(404).json({ error: 'invalid_request', error_description: 'no OIDC client' });
        return;
      }
      try {
        const token = await c.oidc.verifyLogoutToken(String(req.body?.logout_token ?? ''));
        if (!token.replay) {
          // A sid ends that one sign-in; a token with only a sub ends every OIDC sign-in of that person.
          const ends = (s: S) =>
            s.via === 'oidc' && (token.sid ? s.idTokenSid === token.sid : s.sub === token.sub);
          log.add({
            name: 'backchannel-logout',
            receivedAt: new Date(),
            subject: token.sub,
            sid: token.sid,
            signedOut: signOut(sessions, ends),
          });
        }
        res.status(200).end();
      } catch (err) {
        if (!(err instanceof LogoutTokenError)) return next(err);
        res.status(400).json({ error: 'invalid_request', error_description: err.message });
      }
    },
  );

  app.get('/events', (_req, res) => {
    res.type('html').send(eventsPage(log.list()));
  });
}
