import { and, desc, eq, lt, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { toSequenceMessage } from "@/db/queries/messages";
import { agents, sequenceMessages, sequences } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { z } from "zod";
import type { ZListOutboxResponseSchema } from "@/server/routers/conversations/list-outbox.schema";

export type ListOutboxParams = { organizationId: string; cursor?: string; limit?: number; smtpConfigured: boolean };

/** Cursor of a page: the last email's creation time and ID, readable (it names nothing another organization has). */
function cursorOf(row: { createdAt: Date; id: string }): string {
  return `${row.createdAt.toISOString()}|${row.id}`;
}

function parseCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = cursor.split("|");
  const createdAt = new Date(at ?? "");
  if (!id || Number.isNaN(createdAt.getTime())) throw new AppError("INVALID_REQUEST", "cursor: not a cursor this API returned");
  return { createdAt, id };
}

/**
 * The console's Outbox: the organization's sequence emails, newest first, rendered (subject, text and HTML as sent).
 * With no SMTP_URL (the embedded default) nothing leaves the server: this is where the emails are.
 */
export async function listOutbox(db: DbOrTx, params: ListOutboxParams): Promise<z.infer<typeof ZListOutboxResponseSchema>> {
  const limit = params.limit ?? 25;
  const cursor = params.cursor ? parseCursor(params.cursor) : null;
  const rows = await db
    .select({ message: sequenceMessages, contactName: sequences.name, agentName: agents.name })
    .from(sequenceMessages)
    .leftJoin(sequences, eq(sequences.id, sequenceMessages.sequenceId))
    .leftJoin(agents, eq(agents.id, sequenceMessages.agentId))
    .where(
      and(
        eq(sequenceMessages.organizationId, params.organizationId),
        eq(sequenceMessages.channel, "email"),
        cursor ? or(lt(sequenceMessages.createdAt, cursor.createdAt), and(eq(sequenceMessages.createdAt, cursor.createdAt), lt(sequenceMessages.id, cursor.id))) : undefined,
      ),
    )
    .orderBy(desc(sequenceMessages.createdAt), desc(sequenceMessages.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    emails: page.map(({ message, contactName, agentName }) => ({
      ...toSequenceMessage(message),
      sequenceId: message.sequenceId,
      contactName,
      agentName,
      html: message.html,
      transport: message.transport,
    })),
    smtpConfigured: params.smtpConfigured,
    nextCursor: rows.length > limit ? cursorOf(page.at(-1)!.message) : null,
  };
}
