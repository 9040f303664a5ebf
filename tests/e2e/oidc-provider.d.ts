// oidc-provider 9 ships no types; the test uses this much of it.
declare module "oidc-provider" {
  import type { Server } from "node:http";
  type Claims = Record<string, unknown> & { sub: string };
  type Account = { accountId: string; claims: () => Promise<Claims> };
  type Configuration = {
    clients: Array<Record<string, unknown>>;
    claims?: Record<string, string[]>;
    conformIdTokenClaims?: boolean;
    findAccount: (ctx: unknown, sub: string) => Promise<Account>;
  };
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    listen(port: number): Server;
  }
}
