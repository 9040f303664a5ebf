/** A signed-in dashboard user, with the organization they are acting in (verified membership). */
export type SessionActor = { userId: string; email: string; activeOrgId: string | null };
