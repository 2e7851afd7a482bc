// POST /device-authorization (RFC 8628 3.1, discovery's device_authorization_endpoint): a form with `client_id`
// (or the client's registered authentication) and `scope`; answers the device code, user code and the device
// host's approval page (RFC 8628 3.2). The device then polls /token with the device_code grant.
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { startDeviceGrant } from '../domain/device-grant';
import { clientEndpoint, field } from './client-endpoint';

const deviceForm = z.object({ client_id: field, client_secret: field, scope: field });

const DeviceAuthorizationResponse = z.strictObject({
  device_code: z.string().regex(/^odc_[0-9a-f]{64}$/),
  user_code: z.string().regex(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/),
  verification_uri: z.url(),
  verification_uri_complete: z.url(),
  expires_in: z.int().min(1),
  interval: z.int().min(1),
});

export const deviceAuthorizationEndpoints = (deps: OidcDeps) => [
  clientEndpoint(deps, {
    path: '/device-authorization',
    schema: deviceForm,
    maxFields: 10,
    doc: {
      summary: 'Starts a device authorization (RFC 8628); the person approves on the device host.',
      answers: [{ schema: DeviceAuthorizationResponse }],
      oauthErrors: {
        400: ['invalid_request', 'unauthorized_client', 'invalid_scope'],
        401: ['invalid_client'],
        // The device host's per-address limit of started authorizations (DEVICE_RATE_AUTHORIZE_PER_ADDRESS).
        429: ['slow_down'],
        503: ['temporarily_unavailable'],
      },
    },
    handle: async (client, form, req) => ({
      json: await startDeviceGrant(deps, client, {
        scope: form.scope,
        address: req.ip,
        userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : undefined,
      }),
    }),
  }),
];
