/**
 * A short "browser on system" for an admin scanning a sessions list
 * ("Chrome 131 on Android", "Safari on iPhone", "VLC"). Not for decisions:
 * user agents are whatever the client says. Order matters: many browsers
 * name others in their string (Edge says Chrome and Safari, Chrome says Safari).
 */
const BROWSERS: [string, RegExp][] = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /\bOPR\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  // Also "HeadlessChrome/…".
  ['Chrome', /(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//],
  ['VLC', /\bVLC\/(\d+)/],
  ['Apple player', /\bAppleCoreMedia\/(\d+)/],
];

const SYSTEMS: [string, RegExp][] = [
  ['Apple TV', /\bApple TV\b/],
  ['iPhone', /\biPhone\b/],
  ['iPad', /\biPad\b/],
  ['Android', /\bAndroid\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['Windows', /\bWindows\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['Linux', /\bLinux\b/],
];

/**
 * The device class a ticket's record keeps ("Chrome on Android", "VLC"): the summary without the
 * version, so one viewer's device stays one class across browser updates.
 */
export function deviceClass(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown';
  const browser = BROWSERS.find(([, pattern]) => pattern.test(userAgent))?.[0];
  const system = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))?.[0];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? 'Other';
}

export function summarizeUserAgent(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown';
  const browser = BROWSERS.map(([name, pattern]) => [name, pattern.exec(userAgent)] as const).find(([, match]) => match);
  const system = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))?.[0];
  const name = browser ? `${browser[0]} ${browser[1]![1]}` : null;
  if (name && system) return `${name} on ${system}`;
  return name ?? system ?? userAgent.slice(0, 40);
}
