// The int64 rule shared by the wire and the admin, and the JSON member reader that recovers an integer's digits.
import { randomInt } from 'node:crypto';
import { parsePositiveInt64, positiveInt64Member, topLevelMemberSource } from './int64';

describe('parsePositiveInt64', () => {
  it('accepts canonical decimals from 1 to 2^63-1 exactly', () => {
    expect(parsePositiveInt64('1')).toBe(1n);
    expect(parsePositiveInt64('9007199254740993')).toBe(9_007_199_254_740_993n);
    expect(parsePositiveInt64('9223372036854775807')).toBe(9_223_372_036_854_775_807n);
  });
  it.each([
    '0',
    '-1',
    '+1',
    '01',
    '1.0',
    '1e3',
    ' 1',
    '0x10',
    '9223372036854775808',
    '18446744073709551616',
    '',
  ])('refuses %j', (text) => expect(parsePositiveInt64(text)).toBeUndefined());
});

describe('topLevelMemberSource', () => {
  it('finds the top-level member only, after unescaping names; the last duplicate wins as in JSON.parse', () => {
    const json =
      '{"a":{"platformAppId":1},"s":"\\"platformAppId\\":2,}","platform\\u0041ppId" : 9223372036854775807 ,"z":[{"x":"]"}]}';
    expect(JSON.parse(json).platformAppId).toBe(2 ** 63); // rounded
    expect(topLevelMemberSource(json, 'platformAppId')).toBe('9223372036854775807');
    expect(topLevelMemberSource('{"k":1,"k":22}', 'k')).toBe('22');
    expect(topLevelMemberSource('{"k":"v"}', 'missing')).toBeUndefined();
    expect(topLevelMemberSource('[1]', 'k')).toBeUndefined();
  });

  it('agrees with JSON.parse on random objects for every safe integer member', () => {
    for (let n = 0; n < 500; n++) {
      const obj: Record<string, unknown> = {};
      for (let m = randomInt(1, 6); m > 0; m--) {
        const key = ['k', 'k\n"', 'nested', 'x{', 'y]'][randomInt(0, 5)]!;
        obj[key] = [randomInt(0, 2 ** 47), 'te"x,t}]', { k: randomInt(0, 9) }, [1, '"]'], null][
          randomInt(0, 5)
        ];
      }
      const json = JSON.stringify(obj, null, randomInt(0, 3));
      for (const [key, value] of Object.entries(obj)) {
        expect(JSON.parse(topLevelMemberSource(json, key)!)).toEqual(value);
      }
    }
  });
});

describe('positiveInt64Member', () => {
  it('takes an integer past 2^53 from the raw bytes and a decimal string as given', () => {
    const raw = Buffer.from('{"platformAppId":9007199254740993}');
    const parsed = JSON.parse(raw.toString()).platformAppId;
    expect(parsed).toBe(9007199254740992); // what JSON.parse alone would have used
    expect(positiveInt64Member(parsed, raw, 'platformAppId')).toBe(9_007_199_254_740_993n);
    expect(positiveInt64Member('9223372036854775807', '{}', 'platformAppId')).toBe(
      9_223_372_036_854_775_807n,
    );
    expect(positiveInt64Member(480, '{"platformAppId":480}', 'platformAppId')).toBe(480n);
  });
  it.each([
    ['{"p":9223372036854775808}'],
    ['{"p":1e19}'],
    ['{"p":9.3e18}'],
    ['{"p":0}'],
    ['{"p":-5}'],
    ['{"p":1.5}'],
    ['{"p":"12abc"}'],
    ['{"p":true}'],
  ])('refuses %s', (raw) => {
    expect(positiveInt64Member(JSON.parse(raw).p, raw, 'p')).toBeUndefined();
  });
});
