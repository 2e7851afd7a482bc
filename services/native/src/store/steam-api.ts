// Outbound client for the Steam Web API method ISteamUserAuth/AuthenticateUserTicket/v1 (CONTRACTS.md):
// GET {STEAM_API_URL}/ISteamUserAuth/AuthenticateUserTicket/v1/?key=&appid=&ticket=&identity=, with a timeout.
// Steam's "this ticket is not valid" answers are a rejection; anything that prevents an answer is unavailability.
import type { Logger } from '@svc/platform';
import type { SteamClient, SteamVerdict } from '../domain/ports';

export interface SteamClientOptions {
  baseUrl: string;
  apiKey: string;
  identity: string;
  timeoutMs: number;
  logger: Logger;
}

const STEAM_ID = /^\d{1,20}$/;

function classify(body: unknown): SteamVerdict {
  const response = (body as { response?: Record<string, unknown> } | null)?.response;
  if (!response || typeof response !== 'object') return { kind: 'unavailable', why: 'unexpected body' };
  const error = response.error as { errorcode?: unknown } | undefined;
  if (error && typeof error === 'object') {
    return { kind: 'rejected', errorCode: typeof error.errorcode === 'number' ? error.errorcode : null };
  }
  const params = response.params as Record<string, unknown> | undefined;
  if (!params || typeof params !== 'object') return { kind: 'unavailable', why: 'unexpected body' };
  if (params.result !== 'OK' || typeof params.steamid !== 'string' || !STEAM_ID.test(params.steamid)) {
    return { kind: 'rejected', errorCode: null };
  }
  const owner =
    typeof params.ownersteamid === 'string' && STEAM_ID.test(params.ownersteamid)
      ? params.ownersteamid
      : params.steamid;
  return {
    kind: 'verified',
    steamId: params.steamid,
    ownerSteamId: owner,
    vacBanned: params.vacbanned === true,
    publisherBanned: params.publisherbanned === true,
  };
}

export function createSteamClient(opts: SteamClientOptions): SteamClient {
  return {
    async authenticateUserTicket(appId, ticketHex) {
      const url = new URL(`${opts.baseUrl}/ISteamUserAuth/AuthenticateUserTicket/v1/`);
      url.searchParams.set('key', opts.apiKey);
      url.searchParams.set('appid', String(appId));
      url.searchParams.set('ticket', ticketHex);
      url.searchParams.set('identity', opts.identity);
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'GET',
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(opts.timeoutMs),
          redirect: 'error',
        });
      } catch (err) {
        // Never log the URL: it carries the publisher key.
        const why = (err as Error).name === 'TimeoutError' ? 'timeout' : 'network error';
        opts.logger.warn({ why }, 'steam web api unreachable');
        return { kind: 'unavailable', why };
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        body = undefined;
      }
      if (res.status !== 200) {
        // 401/403 mean our publisher key is wrong: an operator problem, not the caller's ticket.
        opts.logger.warn({ status: res.status }, 'steam web api answered with an error status');
        return { kind: 'unavailable', why: `status ${res.status}` };
      }
      const verdict = classify(body);
      if (verdict.kind === 'unavailable')
        opts.logger.warn({ why: verdict.why }, 'steam web api answer not understood');
      return verdict;
    },
  };
}
