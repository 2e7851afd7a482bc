// Every browser page of connect: inquiries, errands, the account page and the read-only basic-terms page (the
// LegalAgreementRequired termsUrl), on the shared sign-in steps of @svc/signin; the table lists them.
import { createTermsRevisionCache } from '@svc/issuance';
import { type Endpoint, pageEndpoint } from '@svc/platform';
import {
  createSignin,
  layout,
  PageError,
  pageQuery,
  type Signin,
  setPageHeaders,
  termsDocument,
  translator,
} from '@svc/signin';
import type { ConnectDeps } from '../deps';
import { CONNECT_MESSAGES, type ConnectKey } from '../pages/i18n-connect';
import { createErrandStore } from '../store/errands';
import type { InquiryStore } from '../store/inquiries';
import { accountPages } from './pages-account';
import { errandPages } from './pages-errand';
import { inquiryPages } from './pages-inquiry';

export type ConnectSignin = Signin<ConnectKey>;

/**
 * connect's binding of the sign-in steps: its flow cookie, namespace and Redis key prefix, its strings, its account
 * page.
 */
export function connectSignin(deps: ConnectDeps): ConnectSignin {
  return createSignin({
    deps: { ...deps, clock: deps.clock },
    config: { ...deps.config, accountPageUrl: `${deps.config.connectUrl}/account` },
    namespace: 'connect',
    redisPrefix: deps.config.redisPrefix,
    receiptChannel: 'CONNECT_BROWSER',
    messages: CONNECT_MESSAGES,
    // A page view without a flow writes one (~260 bytes for FLOW_TTL_SECONDS): without a count, a loop of
    // cookieless views would write without bound. The account page's new sessions count here too.
    newFlowRate: deps.config.newFlowRate,
  });
}

/** The page endpoints: assets, terms, inquiries, errands and the account page. */
export function pageEndpoints(deps: ConnectDeps, inquiries: InquiryStore, signin: ConnectSignin): Endpoint[] {
  return [
    signin.assetEndpoint(),
    termsPage(deps, signin),
    ...inquiryPages({ deps, inquiries, signin }),
    ...errandPages({ deps, errands: createErrandStore(deps.db), signin }),
    ...accountPages({ deps, signin }),
  ];
}

/** GET /terms/{revision}: the read-only basic-terms page (the LegalAgreementRequired termsUrl). */
export const termsPage = (deps: ConnectDeps, signin: ConnectSignin) => {
  const termsRevision = createTermsRevisionCache(deps.db);
  return pageEndpoint({
    method: 'GET',
    path: '/terms/:revision',
    body: { kind: 'none' },
    query: pageQuery,
    noStore: false,
    page: async (req, res) => {
      const revision = Number(req.params.revision);
      const agreement = Number.isInteger(revision) ? await termsRevision(revision) : undefined;
      if (!agreement) throw new PageError(404, 'notFound');
      const locale = signin.locale(req, res);
      const t = translator(locale, CONNECT_MESSAGES);
      const ctx = { locale, t, path: req.path };
      setPageHeaders(res);
      res
        .type('html')
        .send(layout(ctx, t('termsTitle', { revision }), termsDocument(agreement.locales[locale].document)));
    },
  });
};
