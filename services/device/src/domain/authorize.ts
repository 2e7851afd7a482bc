// POST /device-authorize as named steps: application -> standing -> return rule (Layer 3) -> codes -> insert
// (a user-code collision among live codes draws again) -> polling state -> the spec's answer.
import { type DeviceOrigin, startDeviceAuthorization, verificationUris } from '@svc/device-grant';
import { type ApplicationContext, isIssuable } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { DeviceDomain } from './ports';

/** How the person signs in on the approval page; the application must accept it (CONTRACTS, Device host). */
export const DEVICE_AUTH_METHOD = 'PASSKEY_USERNAMELESS';
export const DEVICE_RETURN_METHOD = 'DEVICE_CODE';

export interface DeviceAuthorizeResponse {
  applicationAnchor: string;
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
}

export async function requireApplication(deps: DeviceDomain, anchor: string): Promise<ApplicationContext> {
  const app = await deps.ports.apps.get(anchor);
  if (!app) throw new ServiceError('ApplicationNotFound');
  return app;
}

export function checkStanding(app: ApplicationContext): void {
  if (!isIssuable(app)) throw new ServiceError('ApplicationNotActive');
}

/** Layer 3: device authorization is a return channel the application must enable. */
export function checkReturnRule(app: ApplicationContext): void {
  if (!app.returnRules.some((r) => r.method === DEVICE_RETURN_METHOD)) throw new ServiceError('Layer3Denied');
}

/** Counts a /device-authorize call for its client address (TooManyAttempts past the limit), before its body is read. */
export function countAuthorizeCall(deps: DeviceDomain, address: string): Promise<void> {
  return deps.ports.authorizeLimit.consume(address);
}

export async function authorizeDevice(
  deps: DeviceDomain,
  anchor: string,
  origin: DeviceOrigin,
): Promise<DeviceAuthorizeResponse> {
  const app = await requireApplication(deps, anchor);
  checkStanding(app);
  checkReturnRule(app);
  // Not the PASSKEY_USERNAMELESS rule: the spec starts an authorization for an active application with a DEVICE_CODE
  // return rule, and names only ApplicationNotActive and Layer3Denied as refusals here. The rule is needed where the
  // person signs in with it: redemption requires it (else access_denied, a policy denial), its TTLs apply.
  const started = await startDeviceAuthorization(deps.ports, deps.config, {
    now: new Date(deps.issuance.clock()),
    applicationId: app.id,
    origin,
    prefix: 'dvc_',
  });
  return {
    applicationAnchor: app.anchor,
    deviceCode: started.deviceCode,
    userCode: started.userCode,
    ...verificationUris(deps.config.deviceUrl, started.userCode),
    expiresIn: started.expiresIn,
    interval: started.interval,
  };
}
