import { z } from "zod";
import { authenticate } from "@/server/auth/authenticate";
import { isOperatorEmail } from "@/server/config/settings";
import { AppError } from "@/server/errors";
import { publicProcedure } from "@/server/trpc/init";

export const ZJobsScopeSchema = z
  .enum(["organization", "all"])
  .default("organization")
  .describe("`organization`: runs about this organization's entities (admins). `all`: every run, system runs included (operators).");

/**
 * Who sees background-job runs (signed-in users only, never an API key):
 * - scope `organization`: admins of the organization (and operators who are members of it); outputs redacted to the
 *   organization's data (server/services/jobs/org-scoped-output.ts);
 * - scope `all`: operators (OPERATOR_EMAILS) only, whatever organization the console is on.
 * Puts `jobsOrganizationId` on ctx: the organization to scope by, or null for all.
 */
export const jobsProcedure = publicProcedure.input(z.object({ scope: ZJobsScopeSchema })).use(async ({ ctx, input, next }) => {
  if (ctx.source === "rest") throw new AppError("FORBIDDEN", "This operation is only available to signed-in users.");
  const session = await ctx.getSession();
  if (!session) throw new AppError("UNAUTHORIZED", "Sign in first.");
  const operator = isOperatorEmail(session.email);
  if (input.scope === "all") {
    if (!operator) throw new AppError("FORBIDDEN", "Runs of all organizations are only shown to operators (OPERATOR_EMAILS).");
    return next({ ctx: { ...ctx, jobsOrganizationId: null as string | null } });
  }
  const auth = await authenticate(ctx);
  if (auth.actor.type !== "user" || (auth.actor.role !== "admin" && !operator)) {
    throw new AppError("FORBIDDEN", "This operation needs the admin role.");
  }
  return next({ ctx: { ...ctx, jobsOrganizationId: auth.organizationId as string | null } });
});
