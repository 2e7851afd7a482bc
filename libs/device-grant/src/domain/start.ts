// Starting a device authorization, on either wire: fresh codes, the row (a user code taken by a live authorization
// draws again, so two replicas never hand out one live code twice) and its polling state, written together.
import { type DeviceCodePrefix, deviceCodeHash, newDeviceCode, newUserCode } from './codes';
import type { DeviceGrantSettings } from './config';
import type { DeviceGrantStores } from './ports';

/** Draws of a user code before giving up; at 2^40 codes a second draw is already rare beyond measure. */
const USER_CODE_DRAWS = 8;

/** Who asked, as the approval page shows it: the client address and its User-Agent. */
export interface DeviceOrigin {
  address: string;
  userAgent: string | undefined;
}

export interface StartedAuthorization {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
  interval: number;
}

/** A User-Agent as the page may show it: printable, at most 256 characters; none when nothing printable is left. */
export function displayableUserAgent(raw: string | undefined): string | null {
  if (!raw) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const printable = raw.replace(/[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/g, '').trim();
  return printable ? printable.slice(0, 256) : null;
}

export async function startDeviceAuthorization(
  stores: DeviceGrantStores,
  settings: DeviceGrantSettings,
  input: {
    now: Date;
    applicationId: string;
    origin: DeviceOrigin;
    prefix: DeviceCodePrefix;
    /** The OIDC host's authorizations: the client row id and the scope asked for. */
    oidc?: { clientId: string; scope: string };
  },
): Promise<StartedAuthorization> {
  const { codeTtlSeconds: expiresIn, pollIntervalSeconds: interval } = settings;
  const expiresAt = new Date(input.now.getTime() + expiresIn * 1000);
  const deviceCode = newDeviceCode(input.prefix);
  const hash = deviceCodeHash(deviceCode);
  const row = {
    deviceCodeHash: hash,
    applicationId: input.applicationId,
    interval,
    createdAt: input.now,
    expiresAt,
    deviceAddress: input.origin.address.slice(0, 64),
    deviceUserAgent: displayableUserAgent(input.origin.userAgent),
    oidcClientId: input.oidc?.clientId ?? null,
    scope: input.oidc?.scope ?? null,
  };
  const insertWithFreeCode = async (): Promise<string> => {
    for (let draw = 0; draw < USER_CODE_DRAWS; draw++) {
      const userCode = newUserCode();
      if (await stores.authorizations.insert({ ...row, userCode })) return userCode;
    }
    throw new Error('no free user code after repeated draws');
  };
  // The polling state is keyed by the device code alone, so it is written alongside the row, not after it: a poll
  // can only come once this answer is out, and a row that never went in leaves state that expires unused.
  const [userCode] = await Promise.all([
    insertWithFreeCode(),
    stores.polling.seed(hash, interval, expiresAt, input.oidc?.clientId),
  ]);
  return { deviceCode, userCode, expiresIn, interval };
}
