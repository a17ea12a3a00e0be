/**
 * The part of oidc-provider (a dev dependency, shipped without type declarations) that the
 * end-to-end sign-in test uses to run a real OpenID provider.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AccountClaims {
    sub: string;
    [claim: string]: unknown;
  }

  export interface Account {
    accountId: string;
    claims(): Promise<AccountClaims>;
  }

  export interface Configuration {
    clients?: Record<string, unknown>[];
    findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>;
    claims?: Record<string, string[]>;
    conformIdTokenClaims?: boolean;
    cookies?: { keys: string[] };
    ttl?: Record<string, number>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
