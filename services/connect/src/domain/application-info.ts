// POST /info: an application's name in the locale asked for (the locale must be one the pages speak).
import type { ApplicationCache } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import { canonicalLocale, localizedName } from '@svc/signin';

export async function applicationInfo(
  apps: ApplicationCache,
  asked: { applicationAnchor: string; locale: string },
): Promise<{ applicationAnchor: string; applicationName: string }> {
  if (!canonicalLocale(asked.locale)) throw new ServiceError('InvalidBody');
  const app = await apps.get(asked.applicationAnchor);
  if (!app) throw new ServiceError('ApplicationNotFound');
  return {
    applicationAnchor: app.anchor,
    applicationName: localizedName(app.names, app.defaultLocale, asked.locale),
  };
}
