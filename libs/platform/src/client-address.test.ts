// clientAddressKey: IPv6 clients count by their /64, IPv4 (plain or IPv4-mapped), loopback and NAT64 addresses
// one each, anything unparseable as it is.
import { clientAddressKey, NO_ADDRESS_KEY } from './client-address';

test('IPv6 addresses of one /64 share a key, whatever their spelling; another /64 has its own', () => {
  const same = [
    '2001:db8:1:2::1',
    '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
    '2001:DB8:1:2:a:b:c:d',
    '2001:db8:1:2::192.0.2.1',
    '2001:db8:1:2::9%eth0',
  ];
  expect(new Set(same.map(clientAddressKey))).toEqual(new Set(['2001:db8:1:2::/64']));
  expect(clientAddressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
});

test('issue 25: an IPv4 address and its IPv4-mapped IPv6 spellings are one key, the IPv4 address', () => {
  for (const mapped of [
    '::ffff:192.0.2.1',
    '::FFFF:192.0.2.1',
    '::ffff:c000:201',
    '0:0:0:0:0:ffff:c000:0201',
  ])
    expect(clientAddressKey(mapped)).toBe('192.0.2.1');
  expect(clientAddressKey('::ffff:198.51.100.7')).toBe(clientAddressKey('198.51.100.7'));
});

test('IPv4, loopback, NAT64 and anything else are unchanged', () => {
  for (const address of [
    '192.0.2.1',
    '::1',
    '::',
    '64:ff9b::192.0.2.1',
    '',
    'not-an-address',
    '2001:db8::1::2',
  ])
    expect(clientAddressKey(address)).toBe(address);
  // Two IPv4 clients seen through a dual-stack listener stay two counts.
  expect(clientAddressKey('::ffff:192.0.2.1')).not.toBe(clientAddressKey('::ffff:192.0.2.2'));
});

test('no address at all (a socket without a peer) is one shared key, not a TypeError', () => {
  // Before: isIPv4(undefined) passed, then address.split threw, a 500 with an error-level stack at the host.
  expect(clientAddressKey(undefined)).toBe(NO_ADDRESS_KEY);
});
