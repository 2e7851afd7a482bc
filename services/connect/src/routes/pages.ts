// Every browser page of connect: inquiries, errands, the account page and the read-only basic-terms page (the
// LegalAgreementRequired termsUrl), on the shared sign-in steps of @svc/signin; the table lists them.
import { type Endpoint, pageEndpoint } from '@svc/platform';
import { layout, PageError, pageQuery, setPageHeaders, termsDocument, translator } from '@svc/signin';
import type { ConnectDeps } from '../deps';
import { termsPageRevision } from '../domain/terms-page';
import { CONNECT_MESSAGES } from '../pages/i18n-connect';
import { accountPages } from './pages-account';
import { errandPages } from './pages-errand';
import { inquiryPages } from './pages-inquiry';

/** The page endpoints: assets, terms, inquiries, errands and the account page. */
export function pageEndpoints(deps: ConnectDeps): Endpoint[] {
  return [
    deps.signin.assetEndpoint(),
    termsPage(deps),
    ...inquiryPages(deps),
    ...errandPages(deps),
    ...accountPages(deps),
  ];
}

/** GET /terms/{revision}: the read-only basic-terms page (the LegalAgreementRequired termsUrl). */
export const termsPage = (deps: ConnectDeps) => {
  const { signin } = deps;
  return pageEndpoint({
    method: 'GET',
    path: '/terms/:revision',
    body: { kind: 'none' },
    query: pageQuery,
    noStore: false,
    page: async (req, res) => {
      const found = await termsPageRevision(deps.ports, String(req.params.revision));
      if (!found) throw new PageError('notFound');
      const { revision, agreement } = found;
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
