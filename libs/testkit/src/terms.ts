// Baseline basic terms published once per test database (jest global setup and the benchmark).
import type { Db } from '@svc/db';
import { createAgreementsStore } from '@svc/issuance/stores';
import { publishTerms } from '@svc/provisioning';
import { createProvisioningPorts } from '@svc/provisioning/stores';
import { TESTKIT_ACTOR } from './infra';

export const BASELINE_TERMS = {
  documentType: 'BASIC_TERMS',
  requiredAcceptanceEpoch: 1,
  locales: {
    'en-US': {
      document: {
        schemaVersion: 1,
        title: 'Basic Terms',
        sections: [
          {
            heading: 'Using the service',
            paragraphs: ['You sign in to applications with this service.', 'Keep your passkeys safe.'],
            link: { label: 'Privacy notice', url: 'https://example.test/privacy' },
          },
        ],
      },
    },
    'zh-CN': {
      document: {
        schemaVersion: 1,
        title: '基本条款',
        sections: [
          { heading: '使用本服务', paragraphs: ['您使用本服务登录应用。', '请妥善保管您的通行密钥。'] },
        ],
      },
    },
  },
};

/** Publishes the baseline terms unless some basic terms are already current (idempotent). */
export async function ensureBaselineTerms(db: Db): Promise<void> {
  if (!(await createAgreementsStore(db).currentTerms()))
    await publishTerms(
      createProvisioningPorts(db, { actor: TESTKIT_ACTOR }),
      BASELINE_TERMS,
      'http://127.0.0.1:4101',
    );
}
