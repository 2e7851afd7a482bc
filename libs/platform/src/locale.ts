// The spec's two locales (en-US, zh-CN) and how a request's Accept-Language picks one: connect's pages and the
// localized members of API error bodies decide the same way.
export const LOCALES = ['en-US', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

/**
 * The locale an Accept-Language header asks for: its language ranges by weight (q, default 1; q=0 excluded; ties
 * keep header order), the first that is Chinese (zh-CN) or English (en-US); else en-US.
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale {
  const ranges = (header ?? '')
    .slice(0, 1024)
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { tag: tag.trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((r) => r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const { tag } of ranges) {
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-CN';
    if (tag === 'en' || tag.startsWith('en-')) return 'en-US';
  }
  return 'en-US';
}
