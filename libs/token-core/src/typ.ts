// The spec's JWT `typ` values and audiences: the neutral word `service` stands where the brand would be.
export const TYP = {
  accountAccess: 'vnd.service.application-access+jwt',
  workloadAccess: 'vnd.service.workload-access+jwt',
  refresh: 'vnd.service.application-refresh+jwt',
  publicKeyAssertion: 'vnd.service.public-key-assertion+jwt',
  clientAuth: 'vnd.service.client-auth+jwt',
} as const;

export const AUDIENCE = {
  nativePublicKey: 'service-native-public-key',
  connect: 'service-connect',
  session: 'service-session',
} as const;

export type AccessTyp = typeof TYP.accountAccess | typeof TYP.workloadAccess;
