// Commands for fleet-wide operations: basic-terms publication, signing-key rotation and revocation, sessions.
import {
  appByAnchor,
  listSessions,
  moveSession,
  publishTerms,
  revokeKeyNow,
  rotateKeysNow,
  rotateKeysPrepublished,
} from '@svc/provisioning';
import type { AdminContext } from '../context';
import { UsageError } from '../flags';
import { defineCommand } from '../registry';

const KID = /^[A-Za-z0-9_.-]{1,128}$/;
const SID = /^sid_[A-Za-z0-9_-]{1,64}$/;

/** `sessions suspend` and `sessions resume`: one conditional write, then every host's session cache is told. */
function sessionMoveCommand(move: 'suspend' | 'resume') {
  return defineCommand({
    name: `sessions ${move}`,
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
      const result = await moveSession(ctx.db(), i.sid, move);
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
  const app = await appByAnchor(ctx.db(), anchor);
  const warning = await ctx.announceKeyChange(app.id);
  return warning ? { ...result, warning } : result;
}

export const operationCommands = [
  defineCommand({
    name: 'terms publish',
    synopsis: '--file PATH   (the agreement body: locales en-US and zh-CN, each {document, versionUrl?})',
    flags: { file: {} },
    parse: (f) => ({ body: f.jsonFile('file') }),
    run: (ctx, i) => publishTerms(ctx.db(), i.body, ctx.connectUrl()),
  }),
  defineCommand({
    name: 'keys rotate',
    synopsis:
      '--app A [--now]   (a new key is prepublished and signs once published for the JWK Set cache lifetime; --now: it signs at once)',
    flags: { app: {}, now: { switch: true } },
    parse: (f) => ({ app: f.anchor('app'), now: f.switch('now') }),
    run: (ctx, i) =>
      withAnnouncement(ctx, i.app, () =>
        i.now
          ? rotateKeysNow(ctx.db(), ctx.kek(), i.app)
          : rotateKeysPrepublished(ctx.db(), ctx.kek(), i.app, ctx.rotationPrepublishSeconds()),
      ),
  }),
  defineCommand({
    name: 'keys revoke',
    synopsis: '--app A --kid K   (emergency: the key leaves the JWK Set at once)',
    flags: { app: {}, kid: {} },
    parse: (f) => {
      const kid = f.required('kid');
      if (!KID.test(kid)) throw new UsageError('--kid must be a key id as shown by keys rotate or app show');
      return { app: f.anchor('app'), kid };
    },
    run: (ctx, i) => withAnnouncement(ctx, i.app, () => revokeKeyNow(ctx.db(), ctx.kek(), i.app, i.kid)),
  }),
  defineCommand({
    name: 'sessions list',
    synopsis: '--app A --subject SUB   (newest first, at most 500)',
    flags: { app: {}, subject: {} },
    parse: (f) => ({ app: f.anchor('app'), subject: f.required('subject') }),
    run: (ctx, i) => listSessions(ctx.db(), i.app, i.subject),
  }),
  sessionMoveCommand('suspend'),
  sessionMoveCommand('resume'),
];
