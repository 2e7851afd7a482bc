// The few parts of node-oidc-provider the benchmark's reference uses (the package ships no type declarations).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Savable {
    save(): Promise<string>;
  }
  interface GrantInstance extends Savable {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Client: { find(id: string): Promise<unknown> };
    Grant: new (props: {
      accountId: string;
      clientId: string;
    }) => GrantInstance;
    RefreshToken: new (
      props: Record<string, unknown>,
    ) => Savable;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
