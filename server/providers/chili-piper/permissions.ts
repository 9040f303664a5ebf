/** Edge API permissions (the `X-Chili-Required-Permissions` of each operation) that booking and meetings use. */
export const CHILI_PIPER_PERMISSIONS = [
  "workspace.read",
  "user.read",
  "meeting.read",
  "meeting.modify",
  "distribution.read",
  "handoff.read",
  "handoff.schedule",
  "concierge.read",
  "concierge.schedule",
  "scheduling-links.read",
  "scheduling-links.schedule",
] as const;

export type ChiliPiperPermission = (typeof CHILI_PIPER_PERMISSIONS)[number];

export function isChiliPiperPermission(value: string): value is ChiliPiperPermission {
  return (CHILI_PIPER_PERMISSIONS as readonly string[]).includes(value);
}
