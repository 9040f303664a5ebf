import { router } from "@/server/trpc/init";
import { createApiKeyProcedure } from "./create-api-key.procedure";
import { listApiKeysProcedure } from "./list-api-keys.procedure";
import { revokeApiKeyProcedure } from "./revoke-api-key.procedure";

/** Admins only, and only from a signed-in session: a key can never mint or revoke keys. */
export const apiKeysRouter = router({
  list: listApiKeysProcedure,
  create: createApiKeyProcedure,
  revoke: revokeApiKeyProcedure,
});
