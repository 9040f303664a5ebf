import { getConfig } from "@/server/config/env";
import { listOutbox } from "@/server/services/conversations/list-outbox";
import { requireRole } from "@/server/trpc/init";
import { ZListOutboxRequestSchema, ZListOutboxResponseSchema } from "./list-outbox.schema";

/** Console: the organization's sequence emails, rendered (the Outbox). Every role reads conversations. */
export const listOutboxProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListOutboxRequestSchema)
  .output(ZListOutboxResponseSchema)
  .query(({ ctx, input }) => listOutbox(ctx.db, { organizationId: ctx.auth.organizationId, ...input, smtpConfigured: Boolean(getConfig().SMTP_URL) }));
