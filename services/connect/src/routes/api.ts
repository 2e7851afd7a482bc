// The JSON endpoints of the connect host: /establish, /redeem, /refresh, /info and the inquiry status poll.
import { verifyClientAuthWith } from '@svc/client-auth';
import { ConnectRotatedTokens, endpoint, ISSUANCE_REFUSALS, IssuedTokens } from '@svc/platform';
import { AUDIENCE } from '@svc/token-core';
import { z } from 'zod';
import type { ConnectDeps } from '../deps';
import { applicationInfo } from '../domain/application-info';
import { establishForSigner } from '../domain/establish';
import { pollInquiry } from '../domain/inquiry-status';
import { redeemInquiry } from '../domain/redeem';
import { refreshConnectSession } from '../domain/refresh';
import { establishSchema, infoSchema, inquiryStatusSchema, redeemSchema, refreshSchema } from './schemas';

const Established = z.strictObject({
  applicationAnchor: z.string(),
  exposureKey: z.string(),
  hiddenKey: z.string(),
});
const Info = z.strictObject({ applicationAnchor: z.string(), applicationName: z.string() });
const InquiryStatus = z.strictObject({
  state: z.enum(['established', 'realized', 'redeemed', 'expired']),
  expiresAt: z.iso.datetime({ offset: true }),
  confirmationKey: z.string().optional(),
});

export function apiEndpoints(deps: ConnectDeps) {
  const { inquiries } = deps.ports;
  // The refresh policy counts on the host's registry (refresh_outcomes_total, tokens_issued_total).
  const refreshing = { ...deps.issuance, apps: deps.apps, metrics: deps.metrics };
  return [
    endpoint({
      method: 'POST',
      path: '/establish',
      // More than the default 64 KiB: the three arrays alone may reach 65,536 bytes.
      body: { kind: 'json', schema: establishSchema, limit: 256 * 1024 },
      noStore: true,
      doc: {
        summary: 'Creates an authentication inquiry.',
        answers: [{ schema: Established }],
        reasons: ['ClientAuthDenied', 'ApplicationNotActive', 'Layer1Denied', 'Layer3Denied'],
        auth: 'clientAuth',
      },
      authenticate: (req) =>
        verifyClientAuthWith(deps.ports.clientAuth, deps.clock, {
          authorization: req.headers.authorization,
          rawBody: req.rawBody,
          audience: AUDIENCE.connect,
        }),
      handle: async ({ body, auth }) => {
        const config = {
          inquiries,
          apps: deps.apps,
          clock: deps.clock,
          inquiryTtlSeconds: deps.config.inquiryTtlSeconds,
        };
        return { json: await establishForSigner(config, auth.applicationAnchor, body) };
      },
    }),
    endpoint({
      method: 'POST',
      path: '/redeem',
      body: { kind: 'json', schema: redeemSchema },
      noStore: true,
      doc: {
        summary: 'Redeems a realized inquiry for a session.',
        answers: [{ schema: IssuedTokens }],
        reasons: [
          'InquiryNotFound',
          'InquiryExpired',
          'InquiryNotRealized',
          'InquiryAlreadyRedeemed',
          'ApplicationNotFound',
          'AuthenticationNotFound',
          'AccountNotFound',
          ...ISSUANCE_REFUSALS,
        ],
      },
      handle: async ({ body }) => ({
        json: await redeemInquiry({ inquiries, issuance: deps.issuance, clock: deps.clock }, body),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/refresh',
      body: { kind: 'json', schema: refreshSchema },
      noStore: true,
      doc: {
        summary: 'Rotates a connect refresh token.',
        answers: [{ schema: ConnectRotatedTokens }],
        reasons: [
          'RefreshTokenNotFound',
          'RefreshTokenSuspended',
          'RefreshTokenExpired',
          'RefreshTokenFamilyCompromised',
          'RefreshTokenRotationRaceLost',
          'AccountNotFound',
          ...ISSUANCE_REFUSALS,
        ],
      },
      handle: async ({ body }) => ({
        json: await refreshConnectSession(refreshing, body.refreshToken),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/info',
      body: { kind: 'json', schema: infoSchema },
      noStore: false,
      doc: {
        summary: "The application's localized name.",
        answers: [{ schema: Info }],
        reasons: ['ApplicationNotFound'],
      },
      handle: async ({ body }) => ({ json: await applicationInfo(deps.apps, body) }),
    }),
    endpoint({
      method: 'POST',
      path: '/inquiries/:exposureKey/status',
      body: { kind: 'json', schema: inquiryStatusSchema },
      noStore: true,
      doc: {
        summary: "The inquiry's state (and its confirmation key once realized, for STATUS_POLL).",
        answers: [{ schema: InquiryStatus }],
        reasons: ['InquiryNotFound'],
      },
      handle: async ({ params, body }) => ({
        json: await pollInquiry(
          { inquiries, kek: deps.issuance.kek, clock: deps.clock },
          params.exposureKey!,
          body.hiddenKey,
        ),
      }),
    }),
  ];
}
