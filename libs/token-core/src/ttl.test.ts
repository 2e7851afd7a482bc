import { foldTtls } from './ttl';

describe('foldTtls', () => {
  it('uses the defaults when nothing applies', () => {
    expect(foldTtls([])).toEqual({ accessTtl: 10_800, refreshTtl: 2_592_000 });
  });
  it('lets the minimum of every layer win', () => {
    expect(
      foldTtls([
        { accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 200_000 },
        { accessTokenTtlSeconds: 600 },
        { refreshTokenTtlSeconds: 100_000 },
      ]),
    ).toEqual({ accessTtl: 600, refreshTtl: 100_000 });
  });
  it('bounds overrides by the min and max of the spec', () => {
    expect(foldTtls([{ accessTokenTtlSeconds: 5, refreshTokenTtlSeconds: 10 }])).toEqual({
      accessTtl: 60,
      refreshTtl: 86_400,
    });
    expect(foldTtls([{ accessTokenTtlSeconds: 10_000_000, refreshTokenTtlSeconds: 99_999_999 }])).toEqual({
      accessTtl: 604_800,
      refreshTtl: 31_536_000,
    });
  });
  it('raises the refresh TTL to at least the access TTL', () => {
    expect(foldTtls([{ accessTokenTtlSeconds: 500_000, refreshTokenTtlSeconds: 86_400 }])).toEqual({
      accessTtl: 500_000,
      refreshTtl: 500_000,
    });
  });
});
