// describeUserAgent: the browser and system of common User-Agent headers, and nothing invented for odd ones.
import { describeUserAgent, deviceLabel } from './user-agent';

test.each([
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    { browser: 'Chrome 131', system: 'Linux' },
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
    { browser: 'Edge 131', system: 'Windows' },
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    { browser: 'Safari 17', system: 'iOS' },
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:132.0) Gecko/20100101 Firefox/132.0',
    { browser: 'Firefox 132', system: 'macOS' },
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    { browser: 'Chrome 131', system: 'Android' },
  ],
  ['curl/8.5.0', { browser: undefined, system: undefined }],
  [undefined, { browser: undefined, system: undefined }],
])('%s', (ua, expected) => {
  expect(describeUserAgent(ua)).toEqual(expected);
});

test('the passkey label joins what is known, and is undefined when nothing is', () => {
  expect(deviceLabel({ browser: 'Chrome 131', system: 'Linux' })).toBe('Chrome 131 · Linux');
  expect(deviceLabel({ system: 'Linux' })).toBe('Linux');
  expect(deviceLabel({})).toBeUndefined();
});
