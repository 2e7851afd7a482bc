// The one reading of NODE_ENV: every process decides from it, through isProduction, whether it is in production
// (secrets required, https issuers, no development mailbox or development secrets).

import type { Env } from './config';

/** The NODE_ENV values that mean a development machine or a test run; unset (or blank) means development too. */
const NOT_PRODUCTION = new Set(['development', 'test']);

/**
 * Whether `env` is production: anything but unset, `development` or `test`, compared exactly. A misspelt or
 * differently cased value (`Production`, `prod`, `staging`) is production, so a typo can only ever make a process
 * stricter, never hand it the development secrets.
 */
export function isProduction(env: Env): boolean {
  const value = env.NODE_ENV;
  if (value === undefined || value.trim() === '') return false;
  return !NOT_PRODUCTION.has(value);
}
