import type { Role } from "../../../_components/org-context";

export const ROLES: Array<{ value: Role; label: string; help: string }> = [
  { value: "admin", label: "Admin", help: "everything" },
  { value: "support", label: "Support", help: "conversations, recordings, meetings; read-only elsewhere" },
  { value: "member", label: "Member", help: "read-only" },
];

export function roleLabel(role: Role): string {
  return ROLES.find((r) => r.value === role)?.label ?? role;
}
