// Commands for fleet-wide operations: basic-terms publication, signing-key rotation and revocation, sessions.

import { OIDC_SCOPE } from '@svc/keyring';
import {
  appByAnchor,
  listSessions,
  listSigningKeys,
  moveSession,
  publishTerms,
  resealSecrets,
  revokeKeyNow,
  revokeOidcKeyNow,
  rotateKeysNow,
  rotateKeysPrepublished,
  rotateOidcKeysNow,
  rotateOidcKeysPrepublished,
} from '../index';
import type { AdminContext } from './context';
import { type Flags, UsageError } from './flags';
import { defineCommand } from './registry';

const KID = /^[A-Za-z0-9_.-]{1,128}$/;
const SID = /^sid_[A-Za-z0-9_-]{1,64}$/;

/** `sessions suspend` and `sessions resume`: one conditional write, then every host's session cache is told. */
function sessionMoveCommand(move: 'suspend' | 'resume') {
  return defineCommand({
    name: `sessions ${move}`,
    http: {
      method: 'POST',
      path: move === 'suspend' ? '/v1/sessions/:sid/suspend' : '/v1/sessions/:sid/resume',
    },
    synopsis:
      move === 'suspend'
        ? '--sid SID   (refresh answers RefreshTokenSuspended and introspection not active until resumed)'
        : '--sid SID   (a suspended session refreshes again)',
    flags: { sid: {} },
    parse: (f) => ({
      sid: f.matching('sid', SID, 'a session id (sid_...) as in a token or sessions list', {
        required: true,
      }),
    }),
    run: async (ctx, i) => {
      const result = await moveSession(ctx.provisioning(), i.sid, move, ctx.clock);
      const warning = await ctx.announceSessionChange(i.sid);
      return warning ? { ...result, warning } : result;
    },
  });
}

/** Saves the key change first, then tells the hosts; an unreachable Redis becomes a warning, not a failure. */
async function withAnnouncement(
  ctx: AdminContext,
  anchor: string,
  change: () => Promise<{ kids: string[] }>,
) {
  const result = await change();
  const app = await appByAnchor(ctx.provisioning(), anchor);
  const warning = await ctx.announceKeyChange(app.id);
  return warning ? { ...result, warning } : result;
}

/** The key set a keys command acts on: one application's (--app A) or the platform OIDC set (--oidc), not both. */
function keyScope(f: Flags): { app: string; oidc: false } | { app: undefined; oidc: true } {
  if (f.switch('oidc')) {
    if (f.optional('app') !== undefined) throw new UsageError('give --app or --oidc, not both');
    return { app: undefined, oidc: true };
  }
  return { app: f.anchor('app'), oidc: false };
}

/** As withAnnouncement, for the platform OIDC key set. */
async function withOidcAnnouncement(ctx: AdminContext, change: () => Promise<{ kids: string[] }>) {
  const result = await change();
  const warning = await ctx.announceKeyChange(OIDC_SCOPE);
  return warning ? { ...result, warning } : result;
}

export const operationCommands = [
  defineCommand({
    name: 'terms publish',
    synopsis: '--file PATH   (the agreement body: locales en-US and zh-CN, each {document, versionUrl?})',
    http: { method: 'POST', path: '/v1/terms', created: '/v1/terms/{revision}' },
    flags: { file: { json: 'agreement' } },
    parse: (f) => ({ body: f.jsonFile('file') }),
    run: (ctx, i) => publishTerms(ctx.provisioning(), i.body, ctx.connectUrl()),
  }),
  defineCommand({
    name: 'keys rotate',
    synopsis:
      '--app A | --oidc [--now]   (a new key is prepublished and signs once published for the JWK Set cache lifetime; --now: it signs at once; --oidc: the platform ID-token key set)',
    http: { method: 'POST', path: '/v1/signing-keys/rotate' },
    flags: { app: {}, oidc: { switch: true }, now: { switch: true } },
    parse: (f) => ({ ...keyScope(f), now: f.switch('now') }),
    run: (ctx, i) => {
      if (i.oidc) {
        return withOidcAnnouncement(ctx, () =>
          i.now
            ? rotateOidcKeysNow(ctx.provisioning(), ctx.kek(), ctx.keyRotation(), ctx.clock)
            : rotateOidcKeysPrepublished(ctx.provisioning(), ctx.kek(), ctx.keyRotation(), ctx.clock),
        );
      }
      return withAnnouncement(ctx, i.app, () =>
        i.now
          ? rotateKeysNow(ctx.provisioning(), ctx.kek(), i.app, ctx.keyRotation(), ctx.clock)
          : rotateKeysPrepublished(ctx.provisioning(), ctx.kek(), i.app, ctx.keyRotation(), ctx.clock),
      );
    },
  }),
  defineCommand({
    name: 'keys list',
    synopsis:
      '[--app A | --oidc]   (signing keys, oldest first: kid, scope, status and when each was created, activated, retired or revoked; never key material)',
    http: { method: 'GET', path: '/v1/signing-keys', page: 'keys' },
    flags: { app: {}, oidc: { switch: true } },
    parse: (f) => {
      if (f.switch('oidc')) return keyScope(f);
      return { app: f.optional('app') === undefined ? undefined : f.anchor('app'), oidc: false };
    },
    run: (ctx, i) => listSigningKeys(ctx.provisioning(), { anchor: i.app, oidc: i.oidc }),
  }),
  defineCommand({
    name: 'keys revoke',
    synopsis: '--app A | --oidc --kid K   (emergency: the key leaves the JWK Set at once)',
    http: { method: 'POST', path: '/v1/signing-keys/:kid/revoke' },
    flags: { app: {}, oidc: { switch: true }, kid: {} },
    parse: (f) => {
      const kid = f.required('kid');
      if (!KID.test(kid)) throw new UsageError('--kid must be a key id as shown by keys rotate or app show');
      return { ...keyScope(f), kid };
    },
    run: (ctx, i) =>
      i.oidc
        ? withOidcAnnouncement(ctx, () => revokeOidcKeyNow(ctx.provisioning(), ctx.kek(), i.kid, ctx.clock))
        : withAnnouncement(ctx, i.app, () =>
            revokeKeyNow(ctx.provisioning(), ctx.kek(), i.app, i.kid, ctx.clock),
          ),
  }),
  defineCommand({
    name: 'sessions list',
    synopsis: '--app A --subject SUB   (newest first, at most 500)',
    http: { method: 'GET', path: '/v1/sessions', page: 'sessions' },
    flags: { app: {}, subject: {} },
    parse: (f) => ({ app: f.anchor('app'), subject: f.required('subject') }),
    run: (ctx, i) => listSessions(ctx.provisioning(), i.app, i.subject, ctx.clock),
  }),
  sessionMoveCommand('suspend'),
  sessionMoveCommand('resume'),
  defineCommand({
    name: 'secrets reseal',
    synopsis:
      '(KEK rotation: re-seals under KEY_ENCRYPTION_KEY what a KEY_ENCRYPTION_KEYS_PREVIOUS key sealed; idempotent, resumable, safe while hosts run)',
    http: { method: 'POST', path: '/v1/secrets/reseal', owner: true },
    flags: {},
    parse: () => ({}),
    run: (ctx) => resealSecrets(ctx.provisioning(), ctx.kek()),
  }),
];
