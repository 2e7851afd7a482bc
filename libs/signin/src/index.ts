// The shared sign-in steps of connect, device and OIDC: passkey sign-in, email-code sign-up then passkey, basic
// terms, consent per claim, pages (layout, i18n, CSP, CSRF, cookies, escaping) and their static assets.
export * from './config';
export * from './domain/auth-references';
export * from './domain/email-codes';
export * from './domain/locale';
export * from './domain/mailer';
export * from './domain/page-steps';
export * from './domain/passkey-notice';
export * from './domain/passkeys';
export * from './domain/secrets';
export * from './domain/user-agent';
export * from './pages/html';
export * from './pages/i18n';
export * from './pages/layout';
export * from './pages/page-statuses';
export * from './pages/sign-in';
export * from './pages/steps';
export * from './routes/assets';
export * from './routes/browser';
export * from './routes/page-kit';
export * from './routes/page-schemas';
export type { LoadPage, PasskeySignInPaths, PasskeySignUpPaths } from './routes/passkey-routes';
export type { FormStepPaths, OwedStep, SignedIn, StepPaths } from './routes/sign-in-steps';
export * from './signin';
export * from './site';
export * from './store/accounts';
export * from './store/flows';
