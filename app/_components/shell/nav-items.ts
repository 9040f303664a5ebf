import type { ConsoleOrg } from "../org-context";

export type NavItem = { href: string; label: string };

/** The sidebar's pages, in order, for this person's role (the server refuses the pages anyway; this only hides links). */
export function navItems(org: ConsoleOrg, path: (sub?: string) => string): NavItem[] {
  const admin = org.role === "admin";
  const items: Array<NavItem & { show: boolean }> = [
    { href: path(), label: "Overview", show: true },
    { href: path("/agents"), label: "Agents", show: true },
    { href: path("/conversations"), label: "Conversations", show: true },
    { href: path("/meetings"), label: "Meetings", show: true },
    { href: path("/messaging"), label: "Messaging", show: true },
    { href: path("/numbers"), label: "Numbers", show: true },
    { href: path("/live-calls"), label: "Live calls", show: true },
    { href: path("/import"), label: "Import contacts", show: admin },
    { href: path("/credits"), label: "Credits", show: true },
    { href: path("/suppressions"), label: "Suppressions", show: true },
    { href: path("/compliance"), label: "Compliance", show: true },
    { href: path("/webhooks"), label: "Webhooks", show: true },
    { href: path("/integrations"), label: "Integrations", show: true },
    { href: path("/jobs"), label: "Jobs", show: admin || org.operator },
    { href: path("/api-keys"), label: "API keys", show: admin },
    { href: path("/members"), label: "Members", show: true },
  ];
  return items.filter((item) => item.show).map(({ href, label }) => ({ href, label }));
}
