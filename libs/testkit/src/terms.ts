// Baseline basic terms published once per test database (see test/global-setup.ts).
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
