// A short summary of a User-Agent header (browser and system) for passkey names and security notices.

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\bFirefox\/(\d+)/, 'Firefox'],
  [/\bFxiOS\/(\d+)/, 'Firefox'],
  [/\bCriOS\/(\d+)/, 'Chrome'],
  [/\bHeadlessChrome\/(\d+)/, 'Chrome (headless)'],
  [/\bChrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

export interface DeviceSummary {
  /** Browser and major version, e.g. "Chrome 131". */
  browser?: string;
  /** Operating system, e.g. "Linux". */
  system?: string;
}

/** Picks out the browser and system from a User-Agent header; the raw header itself is never kept. */
export function describeUserAgent(userAgent: string | undefined): DeviceSummary {
  const ua = (userAgent ?? '').slice(0, 512);
  let browser: string | undefined;
  for (const [re, name] of BROWSERS) {
    const m = re.exec(ua);
    if (m) {
      browser = `${name} ${m[1]}`;
      break;
    }
  }
  return { browser, system: SYSTEMS.find(([re]) => re.test(ua))?.[1] };
}

/** A language-neutral label ("Chrome 131 · Linux"), used as a new passkey's name; undefined when nothing is known. */
export function deviceLabel(d: DeviceSummary): string | undefined {
  const parts = [d.browser, d.system].filter(Boolean);
  return parts.length ? parts.join(' · ') : undefined;
}
