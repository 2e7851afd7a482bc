// TTL folding exactly as the spec's Limits: the minimum of every applicable TTL wins, bounded, refresh >= access.
export const ACCESS_TTL = { default: 10_800, min: 60, max: 604_800 } as const;
export const REFRESH_TTL = { default: 2_592_000, min: 86_400, max: 31_536_000 } as const;

export interface TtlLayer {
  accessTokenTtlSeconds?: number | null;
  refreshTokenTtlSeconds?: number | null;
}

export interface FoldedTtls {
  accessTtl: number;
  refreshTtl: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

function foldOne(
  values: (number | null | undefined)[],
  bounds: { default: number; min: number; max: number },
) {
  const given = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const picked = given.length ? Math.min(...given) : bounds.default;
  return clamp(Math.floor(picked), bounds.min, bounds.max);
}

/** Folds rule layers and inquiry constraints into one access and one refresh TTL. */
export function foldTtls(layers: TtlLayer[]): FoldedTtls {
  const accessTtl = foldOne(
    layers.map((l) => l.accessTokenTtlSeconds),
    ACCESS_TTL,
  );
  const refreshTtl = foldOne(
    layers.map((l) => l.refreshTokenTtlSeconds),
    REFRESH_TTL,
  );
  return { accessTtl, refreshTtl: Math.max(refreshTtl, accessTtl) };
}
