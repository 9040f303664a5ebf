/** Plain-language names of the Chili Piper permissions and of what each booking mode does. */
export const PERMISSION_LABELS: Record<string, string> = {
  "workspace.read": "See workspaces",
  "user.read": "See users",
  "meeting.read": "See meetings",
  "meeting.modify": "Cancel meetings and add attendees",
  "distribution.read": "See distributions",
  "handoff.read": "See handoff routers",
  "handoff.schedule": "Book through handoff routers",
  "concierge.read": "See concierge routers",
  "concierge.schedule": "Book through concierge routers",
  "scheduling-links.read": "See scheduling links",
  "scheduling-links.schedule": "Book through scheduling links",
};

export function permissionLabel(permission: string): string {
  return PERMISSION_LABELS[permission] ?? permission;
}

/** `usedBy` ends "N agents book …". */
export const CAPABILITY_LABELS: Record<"link" | "crm" | "concierge" | "meetings", { title: string; description: string; usedBy: string }> = {
  link: { title: "Booking through a scheduling link", description: "The agent offers times from a round-robin, group or team link.", usedBy: "this way" },
  crm: { title: "Booking routed by your CRM", description: "A handoff router picks the host from the caller's CRM record.", usedBy: "this way" },
  concierge: { title: "Concierge booking", description: "A concierge router qualifies the caller and picks the host.", usedBy: "this way" },
  meetings: { title: "Managing booked meetings", description: "Support staff cancel meetings and add attendees.", usedBy: "meetings" },
};

export function agentsText(count: number): string {
  return count === 1 ? "1 agent" : `${count} agents`;
}
