import type { ChiliPiperPermission } from "./permissions";

const NIL = "00000000-0000-0000-0000-000000000000";

/** One side-effect-free request per permission: a 403 means the key lacks it (Edge checks permissions first). */
export const PERMISSION_PROBES: Record<ChiliPiperPermission, { method: string; path: string; body?: unknown; query?: Record<string, string> }> = {
  "workspace.read": { method: "GET", path: "/v1/org/workspace", query: { pageSize: "1" } },
  "user.read": { method: "GET", path: "/v1/org/user/find", query: { query: "probe", pageSize: "1" } },
  "meeting.read": { method: "GET", path: `/v1/org/meetings/get/${NIL}` },
  "meeting.modify": { method: "GET", path: `/v1/org/meetings/cancel/${NIL}` },
  "distribution.read": { method: "PUT", path: "/v2/org/distribution/list", body: { pageSize: 1 } },
  "handoff.read": { method: "GET", path: "/v1/org/handoff/routers/handoff/list" },
  "handoff.schedule": { method: "POST", path: `/v1/org/handoff/routing/${NIL}/router/${NIL}/path/${NIL}/booker/${NIL}/schedule-simple`, body: {} },
  "concierge.read": { method: "POST", path: "/v1/org/concierge/routers/concierge/list", body: {} },
  "concierge.schedule": { method: "POST", path: `/v1/org/concierge/routing/${NIL}/schedule-simple`, body: {} },
  "scheduling-links.read": { method: "POST", path: "/v1/org/schedulingLinks/list-round-robin", body: {} },
  "scheduling-links.schedule": { method: "POST", path: `/v1/org/schedulingLinks/routing/${NIL}/schedule-simple`, body: {} },
};
