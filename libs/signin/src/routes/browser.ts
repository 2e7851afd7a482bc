// Browser plumbing of every sign-in page: cookies, the flow record, locale, CSRF, CSP, forms and page errors.
import { timingSafeEqual } from 'node:crypto';
import type { ApplicationContext } from '@svc/issuance';
import { isDependencyFailure, ServiceError, statusOf } from '@svc/platform';
import type { NextFunction, Request, Response } from 'express';
import type { PendingCodes } from '../domain/email-codes';
import { openFlow } from '../domain/flows';
import { localizedName } from '../domain/locale';
import type { FlowState } from '../domain/ports';
import { newKey } from '../domain/secrets';
import type { SafeHtml } from '../pages/html';
import { formatWait, type Locale, type MessageKey, pickLocale, translator } from '../pages/i18n';
import { layout, type PageContext } from '../pages/layout';
import type { PageErrorKey } from '../pages/page-statuses';
import type { Notice } from '../pages/sign-in';
import { messageView } from '../pages/steps';
import type { Site } from '../site';

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    if (name && !(name in out)) {
      try {
        out[name] = decodeURIComponent(value);
      } catch {
        // A malformed cookie is ignored.
      }
    }
  }
  return out;
}

/**
 * What a host signs someone in for: the application, the page's path, the flow record's key, and who may sign
 * in. Everything else about the sign-in steps is the library's.
 */
export interface PageTarget {
  /** Flow namespace of this target, e.g. inquiry:<id>. */
  key: string;
  /** URL path of the page, e.g. /inquiries/<exposureKey>; the step routes live under it. */
  base: string;
  /**
   * The application signed in for. Absent while the host does not know it yet (the device page before a user code
   * is entered): the step routes then answer 404 notFound.
   */
  app?: ApplicationContext;
  /** Origins a form on these pages may end up at (a callback origin), besides this host. */
  formOrigins: string[];
  /** Only this account may sign in (an errand). */
  accountId?: string;
  /** Only addresses this admits may sign up or sign in (connect's realize constraints). */
  admitsEmail?: (email: string | null) => boolean;
  /** Say before sign-in that it is handed to wherever it started (RFC 8628 section 5.4). */
  warnOriginator?: boolean;
  /** An address the sign-up form starts with (OIDC `login_hint`); ignored unless it is an email address. */
  emailHint?: string;
}

export interface Browser<K extends string = never> {
  /** The flow identifier this request works under (changes when rotate() runs). */
  flowId: string;
  flow: FlowState;
  /** The emailed code pending on this flow and target. */
  codes: PendingCodes;
  locale: Locale;
  ctx: PageContext<MessageKey | K>;
  target: PageTarget;
  /** Writes the flow record; refuses (403 sessionExpired) when the identifier was rotated away or expired. */
  save(): Promise<void>;
  /**
   * A change of privilege (sign-in, sign-up, re-authentication): moves the browser's flow to a fresh identifier
   * and CSRF token and sends the new cookie, so a copy of the old cookie (planted or kept) no longer works.
   */
  rotate(): Promise<void>;
  /** Sets a message for the next page view. */
  flash(key: MessageKey | K, vars?: Record<string, string | number>): void;
  takeNotice(): Notice<MessageKey | K> | undefined;
}

export function cookieOptions(site: Site<string>, maxAgeSeconds: number) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: site.config.secureCookies,
    path: '/',
    maxAge: maxAgeSeconds * 1000,
  };
}

export function contentSecurityPolicy(formOrigins: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    `form-action 'self'${formOrigins.map((o) => ` ${o}`).join('')}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Headers of every page: the strict CSP, no caching, and a same-origin referrer policy (under no-referrer the
 * browser sends `Origin: null` on form posts, which the CSRF check would refuse; cross-origin navigations such
 * as a callback redirect still carry no referrer, so no key leaks through it).
 */
export function setPageHeaders(res: Response, formOrigins: string[] = []): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(formOrigins));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/** The flow cookie: `__Host-` prefixed over HTTPS (Secure, Path=/, no Domain), HttpOnly, SameSite=Lax. */
export function flowCookieOptions(site: Site<string>) {
  const options = cookieOptions(site, site.config.flowTtlSeconds);
  if (site.config.flowCookieName.startsWith('__Host-')) options.secure = true;
  return options;
}

/**
 * Locale for this request; a page's `?lang=` (its declared query, `pageQuery`: a page without one, or whose query
 * was refused, has none) wins when it names a locale, and is remembered in a cookie.
 */
export function requestLocale(site: Site<string>, req: Request, res: Response): Locale {
  const cookies = parseCookies(req.headers.cookie);
  const asked: unknown = req.query.lang;
  const locale = pickLocale(asked, cookies[site.langCookie], req.headers['accept-language']);
  if (asked === locale) {
    const options = cookieOptions(site, 365 * 24 * 3600);
    if (site.langCookie.startsWith('__Host-')) options.secure = true;
    res.cookie(site.langCookie, locale, options);
  }
  return locale;
}

/** Opens (or starts) this browser's flow for a target and builds the page context. */
export async function openBrowser<K extends string>(
  site: Site<K>,
  req: Request,
  res: Response,
  target: PageTarget,
): Promise<Browser<K>> {
  const { flows } = site.ports;
  const cookieName = site.config.flowCookieName;
  const setFlowCookie = (id: string) => res.cookie(cookieName, id, flowCookieOptions(site));
  const opened = await openFlow(
    site.ports,
    {
      flowId: parseCookies(req.headers.cookie)[cookieName],
      post: req.method !== 'GET' && req.method !== 'HEAD',
      clientIp: req.ip ?? '',
      newFlowLimit: site.newFlowLimit,
    },
    target.key,
    setFlowCookie,
  );
  if (!opened) throw new PageError('sessionExpired');
  const { flowId, flow } = opened;
  const locale = requestLocale(site, req, res);
  const t = translator(locale, site.messages);
  const browser: Browser<K> = {
    flowId,
    flow,
    codes: {
      guess: (max) => flows.guessCode(browser.flowId, target.key, max),
      consume: (value) => flows.consumeCode(browser.flowId, target.key, value),
      drop: () => flows.dropCode(browser.flowId, target.key),
    },
    locale,
    target,
    ctx: {
      locale,
      t,
      path: target.base,
      csrf: flow.csrf,
      appName: target.app && localizedName(target.app.names, target.app.defaultLocale, locale),
      codeTtlSeconds: site.config.emailCodeTtlSeconds,
    },
    async save() {
      if (!(await flows.save(browser.flowId, target.key, flow))) throw new PageError('sessionExpired');
    },
    async rotate() {
      const next = await flows.rotate(browser.flowId);
      if (!next) throw new PageError('sessionExpired');
      browser.flowId = next;
      flow.csrf = newKey('');
      browser.ctx.csrf = flow.csrf;
      setFlowCookie(next);
    },
    flash(key, vars) {
      flow.notice = { key, vars };
    },
    takeNotice() {
      const n = flow.notice as Notice<MessageKey | K> | undefined;
      delete flow.notice;
      return n;
    },
  };
  setPageHeaders(res, target.formOrigins);
  return browser;
}

/** The target's application; a step that needs one and has none is 404 notFound. */
export function appOf(target: PageTarget): ApplicationContext {
  if (!target.app) throw new PageError('notFound');
  return target.app;
}

/**
 * CSRF: the form field _csrf (or the X-CSRF-Token header of the page's script) must equal the flow's token, and
 * a present Origin must be this host's. SameSite=Lax cookies are the second line.
 */
export function csrfValid(site: Site<string>, req: Request, flow: { csrf: string }): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== site.config.origin) return false;
  const body = (req.body ?? {}) as Record<string, unknown>;
  const presented = typeof body._csrf === 'string' ? body._csrf : req.headers['x-csrf-token'];
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(flow.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A page-level failure: the message key shown (and an optional action). Its status is the site's page-status table's
 * (pages/page-statuses.ts, plus the host's own). `K` names a host's own page-error keys
 * (`new PageError<ConnectPageError>('errandCompleted')`); without it only the shared keys are accepted.
 */
export class PageError<K extends string = never> extends Error {
  constructor(
    readonly key: PageErrorKey | NoInfer<K>,
    readonly action?: { url: string; label: MessageKey | NoInfer<K> },
  ) {
    super(key);
    this.name = 'PageError';
  }
}

/** The status a page answers with for `key`, from the site's table (a key the table lacks is the server's fault). */
export function pageStatusOf(site: Site<string>, key: string): number {
  const status = site.statuses[key];
  if (status !== undefined) return status;
  site.deps.logger.error({ key }, 'page error key without a status in the page-status table');
  return 500;
}

export function sendPage<K extends string>(
  res: Response,
  b: Browser<K>,
  title: string,
  body: SafeHtml,
  status = 200,
  scripts = false,
): void {
  res
    .status(status)
    .type('html')
    .send(layout(b.ctx, title, body, { scripts }));
}

/** Renders a bare message page when no target could be loaded (unknown or expired link). */
export function sendBarePage<K extends string>(
  site: Site<K>,
  req: Request,
  res: Response,
  status: number,
  key: MessageKey | K,
  /** Where the language switch leads: by default the request's own URL for a GET (query kept), else its path. */
  here?: string,
  /** The message's placeholders, in the page's locale. */
  vars?: (locale: Locale) => Record<string, string | number>,
): void {
  const locale = requestLocale(site, req, res);
  const t = translator(locale, site.messages);
  const path = here ?? (req.method === 'GET' || req.method === 'HEAD' ? req.originalUrl : req.path);
  const ctx: PageContext<MessageKey | K> = { locale, t, path };
  setPageHeaders(res);
  res
    .status(status)
    .type('html')
    .send(layout(ctx, t('errorHeading'), messageView(ctx, 'errorHeading', { key, vars: vars?.(locale) })));
}

/**
 * The 429 page's message: the wait its Retry-After names (limits' windows run from 60 s to 10 min, so no fixed
 * phrase is true for all of them), or "later" when the answer names none.
 */
function tooManyMessage(headers: Record<string, string> | undefined): {
  key: MessageKey;
  vars?: (locale: Locale) => Record<string, string>;
} {
  const seconds = Number(headers?.['Retry-After']);
  if (!Number.isInteger(seconds) || seconds < 1) return { key: 'tooManyLater' };
  return { key: 'tooMany', vars: (locale) => ({ wait: formatWait(locale, seconds) }) };
}

function isUndecodablePath(err: unknown): boolean {
  return err instanceof URIError && (err as URIError & { status?: number }).status === 400;
}

/** A failure nothing anticipated (no page error, reason or dependency outage) is the server's own. */
const UNEXPECTED_FAILURE = 500;

/** Error handler of the page routes: HTML for pages, JSON for the passkey endpoints the page script calls. */
export function pageErrors<K extends string>(site: Site<K>) {
  return (thrown: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(thrown);
    const json = req.path.includes('/passkey/');
    // A path parameter that is not UTF-8 once percent-decoded (the router's URIError, status 400) names no page.
    const err = isUndecodablePath(thrown) ? new PageError('notFound') : thrown;
    if (err instanceof PageError) {
      const status = pageStatusOf(site, err.key);
      if (json) return void res.status(status).json({ reason: err.key });
      return sendBarePage(site, req, res, status, err.key as MessageKey | K);
    }
    if (err instanceof ServiceError) {
      if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
      // The reason table's answer at this endpoint (a refused passkey ceremony is a 401 there).
      const { status } = err.answerAt({ path: req.path });
      if (json) return void res.status(status).json({ reason: err.reason });
      if (status === 429) {
        const { key, vars } = tooManyMessage(err.headers);
        return sendBarePage(site, req, res, status, key, undefined, vars);
      }
      const key: MessageKey = err.reason === 'InvalidBody' ? 'badForm' : 'unavailable';
      return sendBarePage(site, req, res, status >= 500 ? 503 : status, key);
    }
    if (isDependencyFailure(err)) {
      res.setHeader('Retry-After', '1');
      const status = statusOf('TemporarilyUnavailable');
      if (json) return void res.status(status).json({ reason: 'TemporarilyUnavailable' });
      return sendBarePage(site, req, res, status, 'unavailable');
    }
    site.deps.logger.error({ err, path: req.route?.path }, 'page error');
    if (json) return void res.status(UNEXPECTED_FAILURE).end();
    return sendBarePage(site, req, res, UNEXPECTED_FAILURE, 'unavailable');
  };
}
