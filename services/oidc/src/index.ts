// Public surface of the OIDC host package for the benchmark and tests: the app factory and its deps.
export { createOidcApp } from './app';
export { type OidcConfig, type OidcSettings, oidcConfigFromEnv } from './config';
export { type OidcDeps, openOidcDeps } from './deps';
