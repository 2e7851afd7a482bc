/** @jest-config-loader esbuild-register */
// One jest run for the whole tree: TypeScript through SWC (no build step), ESM-only deps (jose) transformed to CJS.
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/tools', '<rootDir>/scripts', '<rootDir>/bench'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
    '^.+\\.mjs$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(\\.pnpm/)?(jose|@simplewebauthn|@hexagon|@levischuck|@peculiar|openid-client|oauth4webapi))',
  ],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  injectGlobals: true,
};

export default config;
