// POST /device-authorize as named steps: application -> standing -> return rule (Layer 3) -> codes -> insert
// (a user-code collision among live codes draws again) -> polling state -> the spec's answer.
import { type ApplicationContext, isIssuable } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { DeviceDeps } from '../deps';
import { deviceCodeHash, newDeviceCode, newUserCode } from './codes';

/** How the person signs in on the approval page; the application must accept it (CONTRACTS, Device host). */
export const DEVICE_AUTH_METHOD = 'PASSKEY_USERNAMELESS';
export const DEVICE_RETURN_METHOD = 'DEVICE_CODE';
/** The approval page's path on the device host; verificationUriComplete adds `?user_code=`. */
export const VERIFICATION_PATH = '/device';
/** Draws of a user code before giving up; at 2^40 codes a second draw is already rare beyond measure. */
const USER_CODE_DRAWS = 8;

export interface DeviceAuthorizeResponse {
  applicationAnchor: string;
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
}

/** Who asked, as the approval page shows it: the client address and its User-Agent. */
export interface DeviceOrigin {
  address: string;
  userAgent: string | undefined;
}

export async function requireApplication(deps: DeviceDeps, anchor: string): Promise<ApplicationContext> {
  const app = await deps.apps.get(anchor);
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

export function verificationUris(deviceUrl: string, userCode: string) {
  const verificationUri = `${deviceUrl}${VERIFICATION_PATH}`;
  return { verificationUri, verificationUriComplete: `${verificationUri}?user_code=${userCode}` };
}

/** A User-Agent as the page may show it: printable, at most 256 characters; none when nothing printable is left. */
export function displayableUserAgent(raw: string | undefined): string | null {
  if (!raw) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const printable = raw.replace(/[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/g, '').trim();
  return printable ? printable.slice(0, 256) : null;
}

export async function authorizeDevice(
  deps: DeviceDeps,
  anchor: string,
  origin: DeviceOrigin,
): Promise<DeviceAuthorizeResponse> {
  const app = await requireApplication(deps, anchor);
  checkStanding(app);
  checkReturnRule(app);
  // Not the PASSKEY_USERNAMELESS rule: the spec starts an authorization for an active application with a DEVICE_CODE
  // return rule, and names only ApplicationNotActive and Layer3Denied as refusals here. The rule is needed where the
  // person signs in with it: redemption requires it (else access_denied, a policy denial), its TTLs apply.
  const now = new Date(deps.issuance.clock());
  const { codeTtlSeconds: expiresIn, pollIntervalSeconds: interval } = deps.config;
  const expiresAt = new Date(now.getTime() + expiresIn * 1000);
  const deviceCode = newDeviceCode();
  const hash = deviceCodeHash(deviceCode);
  const stored = {
    deviceAddress: origin.address.slice(0, 64),
    deviceUserAgent: displayableUserAgent(origin.userAgent),
  };
  const insertWithFreeCode = async (): Promise<string> => {
    for (let draw = 0; draw < USER_CODE_DRAWS; draw++) {
      const candidate = newUserCode();
      const row = {
        deviceCodeHash: hash,
        userCode: candidate,
        applicationId: app.id,
        interval,
        createdAt: now,
        expiresAt,
      };
      if (await deps.authorizations.insert({ ...row, ...stored })) return candidate;
    }
    throw new Error('no free user code after repeated draws');
  };
  // The polling state is keyed by the device code alone, so it is written alongside the row, not after it: a poll
  // can only come once this answer is out, and a row that never went in leaves state that expires unused.
  const [userCode] = await Promise.all([insertWithFreeCode(), deps.polling.seed(hash, interval, expiresAt)]);
  return {
    applicationAnchor: app.anchor,
    deviceCode,
    userCode,
    ...verificationUris(deps.config.deviceUrl, userCode),
    expiresIn,
    interval,
  };
}
