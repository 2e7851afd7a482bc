// BCP 47 matching of a requested locale against the locales an application has names for; dates as pages and
// mails show them.
import type { Locale } from '@svc/platform';

/** Canonical form of a tag, or undefined when it is not a well-formed BCP 47 tag. */
export function canonicalLocale(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

function parts(tag: string) {
  const max = new Intl.Locale(tag).maximize();
  return { language: max.language, script: max.script, region: max.region };
}

/**
 * Picks the best available locale for `requested`: an exact match, then the same language with the same likely
 * script and region (zh-Hans-CN finds zh-CN), same script, same region, same language; else undefined.
 */
export function matchLocale(requested: string, available: string[]): string | undefined {
  const canonical = canonicalLocale(requested);
  if (!canonical) return undefined;
  const exact = available.find((a) => a.toLowerCase() === canonical.toLowerCase());
  if (exact) return exact;
  const want = parts(canonical);
  const scored = available
    .map((a) => {
      const c = canonicalLocale(a);
      if (!c) return { a, score: 0 };
      const have = parts(c);
      if (have.language !== want.language) return { a, score: 0 };
      let score = 1;
      if (have.script === want.script) score += 4;
      if (have.region === want.region) score += 2;
      return { a, score };
    })
    .filter((s) => s.score > 0)
    .sort((x, y) => y.score - x.score);
  return scored[0]?.a;
}

/** The localized name of an application, falling back to its default locale. */
export function localizedName(
  names: Record<string, string>,
  defaultLocale: string,
  requested: string,
): string {
  const picked = matchLocale(requested, Object.keys(names));
  return (picked && names[picked]) || names[defaultLocale] || Object.values(names)[0] || '';
}

/**
 * A date and time in UTC (the server does not know the reader's time zone), 24-hour, in the reader's locale; the
 * caller labels the zone.
 */
export function utcDateTime(locale: Locale, at: Date, dateStyle: 'long' | 'medium'): string {
  return new Intl.DateTimeFormat(locale, {
    dateStyle,
    timeStyle: 'short',
    timeZone: 'UTC',
    hourCycle: 'h23',
  }).format(at);
}
