/** @jest-config-loader esbuild-register */
// One jest run for the whole tree: TypeScript through SWC (no build step), ESM-only deps (jose) transformed to CJS.
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: [
    '<rootDir>/libs',
    '<rootDir>/services',
    '<rootDir>/tools',
    '<rootDir>/clients',
    '<rootDir>/examples',
    '<rootDir>/scripts',
    '<rootDir>/bench',
  ],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
    '^.+\\.mjs$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(\\.pnpm/)?(jose|@simplewebauthn|@hexagon|@levischuck|@peculiar|openid-client|oauth4webapi|@auth|preact|preact-render-to-string|@panva))',
  ],
  // The client package is ESM built with tsc; in tests its TypeScript source stands in for the built dist/.
  moduleNameMapper: { '^@signin-service/node$': '<rootDir>/clients/node/src/index.ts' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  // A ceiling, never a claim about speed: at load 30 on 2 cores a test that takes 2 s quietly takes 30 (several
  // files were given 120 s one by one after failing at the old 30 s). Bounds a test proves are asserted inside it.
  testTimeout: 120_000,
  maxWorkers: 2,
  injectGlobals: true,
};

export default config;
