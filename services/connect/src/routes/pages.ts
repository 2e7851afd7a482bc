// Mounts every browser page: inquiries, errands and the read-only basic-terms page (the LegalAgreementRequired
// termsUrl), with rate limits and the page error handler (each form route reads its body with `formBody`).
import type { Agreement } from '@svc/issuance';
import { createRateLimiter } from '@svc/platform';
import { Router } from 'express';
import type { ConnectDeps } from '../deps';
import type { CodeLimits } from '../domain/email-codes';
import { translator } from '../pages/i18n';
import { layout } from '../pages/layout';
import { termsDocument } from '../pages/steps';
import { createAccountStore, createErrandStore } from '../store/accounts';
import { createFlowStore } from '../store/flows';
import type { InquiryStore } from '../store/inquiries';
import { PageError, pageErrors, requestLocale, setPageHeaders } from './browser';
import { accountPages } from './pages-account';
import { errandPages } from './pages-errand';
import { inquiryPages } from './pages-inquiry';

export function pageRoutes(deps: ConnectDeps, inquiries: InquiryStore): Router {
  const router = Router();
  const flows = createFlowStore(deps.redis, deps.config.flowTtlSeconds);
  const accounts = createAccountStore(deps.db);
  const errands = createErrandStore(deps.db);
  const { rateLimits: rl, rateLimitNamespace: ns } = deps.config;
  const limiter = (name: string, points: number, durationSeconds: number) =>
    createRateLimiter(deps.redis, { keyPrefix: `${ns}:${name}`, points, durationSeconds });
  const codeLimits: CodeLimits = {
    sendPerIp: limiter('code-send-ip', rl.codeSendPerIp, 600),
    sendPerRecipient: limiter('code-send-to', rl.codeSendPerRecipient, 600),
    verify: limiter('code-verify-ip', rl.codeVerifyPerIp, 600),
  };
  const signInLimit = limiter('sign-in-ip', rl.signInPerIp, 300);

  inquiryPages(router, { deps, inquiries, flows, accounts, codeLimits, signInLimit });
  errandPages(router, { deps, errands, flows, accounts, codeLimits, signInLimit });
  accountPages(router, { deps, accounts, signInLimit });

  router.get('/terms/:revision', async (req, res) => {
    const revision = Number(req.params.revision);
    const doc = Number.isInteger(revision)
      ? await deps.db.agreementDocument.findUnique({
          where: { documentType_revision: { documentType: 'BASIC_TERMS', revision } },
        })
      : null;
    if (!doc) throw new PageError(404, 'notFound');
    const locale = requestLocale(deps, req, res);
    const t = translator(locale);
    const agreement = doc.body as unknown as Agreement;
    const ctx = { locale, t, path: req.path };
    setPageHeaders(res);
    res
      .type('html')
      .send(layout(ctx, t('termsTitle', { revision }), termsDocument(agreement.locales[locale].document)));
  });

  router.use(pageErrors(deps));
  return router;
}
