import type { SimTenant } from "./fixtures";
import { routerSummary } from "./edge-views";
import { SimError } from "./sim-error";
import type { SimulatorState } from "./state";

type Handler = (ctx: { params: string[]; body: Record<string, unknown>; query: URLSearchParams }) => { status?: number; body: unknown };
export type EdgeRoute = { method: string; pattern: RegExp; permission: string; handle: Handler };

function paginate<T>(items: T[], query: URLSearchParams) {
  const page = Math.max(0, Number(query.get("page") ?? 0) || 0);
  const pageSize = Math.min(200, Math.max(1, Number(query.get("pageSize") ?? 200) || 200));
  return { results: items.slice(page * pageSize, page * pageSize + pageSize), total: items.length, page, pageSize };
}

/** The Edge API endpoints the simulator serves: path, method, the permission each needs, and its handler. */
export function edgeRoutes(state: SimulatorState): EdgeRoute[] {
  const t = () => state.tenant;
  const userOut = (u: SimTenant["users"][number]) => ({
    id: u.id,
    name: u.name,
    email: u.email,
    isSuperAdmin: false,
    licenses: { chiliCalOrg: true, handoff: true, concierge: true, distro: true },
    workspaces: u.workspaces,
    managedWorkspaces: [],
    managedTeams: [],
  });
  const meta = { createdAt: "2026-01-05T10:00:00.000Z", createdBy: "user/sim", updatedAt: "2026-01-05T10:00:00.000Z", updatedBy: "user/sim", revision: 1 };
  const linkList = (type: string) => (ctx: { body: Record<string, unknown> }) => {
    const filterWs = ctx.body.filterWorkspaceIds as string[] | undefined;
    const links = t().links.filter((l) => l.type === type && (!filterWs || filterWs.includes(l.workspaceId)));
    return { body: { links: links.map((l) => state.linkDetail(l)) } };
  };
  return [
    {
      method: "GET",
      pattern: /^\/v1\/org\/workspace$/,
      permission: "workspace.read",
      handle: ({ query }) => ({ body: paginate(t().workspaces.map((w) => ({ id: w.id, name: w.name, metadata: meta })), query) }),
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/workspace\/users$/,
      permission: "workspace.read",
      handle: ({ query }) => {
        const ws = query.get("workspaceId");
        return { body: paginate(t().users.filter((u) => !ws || u.workspaces.includes(ws)).map(userOut), query) };
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/user\/find$/,
      permission: "user.read",
      handle: ({ query }) => {
        const q = (query.get("query") ?? "").toLowerCase();
        return { body: paginate(t().users.filter((u) => u.email.includes(q) || u.name.toLowerCase().includes(q)).map(userOut), query) };
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/user\/read\/([^/]+)$/,
      permission: "user.read",
      handle: ({ params }) => {
        const user = state.user(params[0]!);
        if (!user) throw new SimError(404, "UserNotFound", `User ${params[0]} not found`);
        return { body: userOut(user) };
      },
    },
    {
      method: "PUT",
      pattern: /^\/v2\/org\/distribution\/list$/,
      permission: "distribution.read",
      handle: ({ body, query }) => {
        const ws = body.workspaceIds as string[] | undefined;
        const name = typeof body.name === "string" ? body.name.toLowerCase() : undefined;
        const items = t()
          .distributions.filter((d) => (!ws || ws.includes(d.workspaceId)) && (!name || d.name.toLowerCase().includes(name)))
          .map((d) => ({
            id: d.id,
            published: {
              distributionId: d.id,
              workspaceId: d.workspaceId,
              name: d.name,
              assignmentTypeConfig: { type: "Meeting", handling: { type: "Strict", hideAssignee: false }, limits: { type: "MeetingLimitUnset" } },
              teamRef: { teamId: `team-${d.id.slice(-4)}` },
              weights: d.assignees.map((userId) => ({ userId, weight: 100 })),
              metadata: meta,
            },
            state: { userStates: d.assignees.map((userId) => ({ type: "Active", userId, total: 0, level: { current: 0, nextAssignmentDelta: 1, total: 0 }, statistics: {} })) },
            prioritization: { queue: d.assignees, onVacation: [], reachedCap: [] },
          }));
        const page = Math.max(0, Number(body.page ?? query.get("page") ?? 0) || 0);
        const pageSize = Math.min(200, Math.max(1, Number(body.pageSize ?? 200) || 200));
        return { body: { results: items.slice(page * pageSize, page * pageSize + pageSize), total: items.length, page, pageSize } };
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/handoff\/routers\/handoff\/list$/,
      permission: "handoff.read",
      handle: ({ query }) => {
        const ws = query.get("workspaceId");
        const list = t().handoffRouters.filter((r) => !ws || r.workspaceId === ws);
        return { body: list.map((r) => ({ id: r.id, workspaceId: r.workspaceId, name: r.name, routing: routerSummary(r.catchAll) })) };
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/handoff\/routers\/handoff\/([^/]+)$/,
      permission: "handoff.read",
      handle: ({ params }) => {
        const r = t().handoffRouters.find((x) => x.id === params[0]);
        if (!r) throw new SimError(404, "RouterNotFound", `Handoff router ${params[0]} not found`);
        return { body: { id: r.id, workspaceId: r.workspaceId, name: r.name, routing: routerSummary(r.catchAll) } };
      },
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/concierge\/routers\/concierge\/list$/,
      permission: "concierge.read",
      handle: ({ query, body }) => {
        const ws = query.get("workspaceId") ?? (typeof body.workspaceId === "string" ? body.workspaceId : null);
        const list = t().conciergeRouters.filter((r) => !ws || r.workspaceId === ws);
        return {
          body: {
            routers: list.map((r) => ({
              router: { id: r.id, name: r.name, slug: r.slug, routing: routerSummary(r.catchAll) },
              dataFields: ["PersonEmail", "PersonFirstName", "PersonLastName", "PersonPhone"],
              workspaceId: r.workspaceId,
            })),
          },
        };
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/concierge\/routers\/concierge\/([^/]+)$/,
      permission: "concierge.read",
      handle: ({ params }) => {
        const r = t().conciergeRouters.find((x) => x.id === params[0]);
        if (!r) throw new SimError(404, "RouterNotFound", `Concierge router ${params[0]} not found`);
        return { body: { id: r.id, workspaceId: r.workspaceId, name: r.name, slug: r.slug, routing: routerSummary(r.catchAll) } };
      },
    },
    { method: "POST", pattern: /^\/v1\/org\/schedulingLinks\/list-round-robin$/, permission: "scheduling-links.read", handle: linkList("round-robin") },
    { method: "POST", pattern: /^\/v1\/org\/schedulingLinks\/list-admin-one-on-one$/, permission: "scheduling-links.read", handle: linkList("admin-one-on-one") },
    { method: "POST", pattern: /^\/v1\/org\/schedulingLinks\/list-group$/, permission: "scheduling-links.read", handle: linkList("group") },
    { method: "POST", pattern: /^\/v1\/org\/schedulingLinks\/list-ownership$/, permission: "scheduling-links.read", handle: linkList("ownership") },
    {
      method: "GET",
      pattern: /^\/v1\/org\/schedulingLinks\/list-personal\/([^/]+)$/,
      permission: "user.read",
      handle: ({ params }) => ({
        body: t()
          .links.filter((l) => l.type === "personal" && l.hostUserId === params[0])
          .map((l) => ({ slug: l.slug, meetingTypeId: l.meetingTypeId, meetingTypeName: "Discovery call", bookingUrl: `https://sim-acme.chilipiper.example/me/${l.slug}` })),
      }),
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/schedulingLinks\/init-simple$/,
      permission: "scheduling-links.schedule",
      handle: ({ body }) => ({ body: state.initLink(body) }),
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/schedulingLinks\/routing\/([^/]+)\/schedule-simple$/,
      permission: "scheduling-links.schedule",
      handle: ({ params, body }) => ({ body: state.schedule(params[0]!, body) }),
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/handoff\/workspace\/([^/]+)\/booker\/([^/]+)\/init-simple$/,
      permission: "handoff.schedule",
      handle: ({ params, body }) => ({ body: state.initHandoff(params[0]!, params[1]!, body) }),
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/handoff\/routing\/([^/]+)\/router\/([^/]+)\/path\/([^/]+)\/booker\/([^/]+)\/schedule-simple$/,
      permission: "handoff.schedule",
      handle: ({ params, body }) => ({ body: state.schedule(`${params[0]}/${params[1]}/${params[2]}`, body) }),
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/concierge\/routers\/([^/]+)\/rest$/,
      permission: "concierge.schedule",
      handle: ({ params, body }) => ({ body: state.routeConcierge(params[0]!, body) }),
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/concierge\/routing\/([^/]+)\/schedule-simple$/,
      permission: "concierge.schedule",
      handle: ({ params, body }) => ({ body: state.schedule(params[0]!, body) }),
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/meetings\/get\/([^/]+)$/,
      permission: "meeting.read",
      handle: ({ params }) => ({ body: { data: state.meetingRecord(params[0]!), hasMore: "No" } }),
    },
    {
      method: "GET",
      pattern: /^\/v1\/org\/meetings\/cancel\/([^/]+)$/,
      permission: "meeting.modify",
      handle: ({ params }) => ({ body: state.cancelMeeting(params[0]!, {}) }),
    },
    {
      // The Edge cancel with Cal.com's cancel body ({cancellationReason, cancelSubsequentBookings}).
      method: "POST",
      pattern: /^\/v1\/org\/meetings\/cancel\/([^/]+)$/,
      permission: "meeting.modify",
      handle: ({ params, body }) => ({ body: state.cancelMeeting(params[0]!, body) }),
    },
    {
      // Attendees follow Cal.com's bookings/{uid}/attendees bodies, under the Edge meetings namespace.
      method: "GET",
      pattern: /^\/v1\/org\/meetings\/([^/]+)\/attendees$/,
      permission: "meeting.read",
      handle: ({ params }) => ({ body: { status: "success", data: state.attendees(params[0]!) } }),
    },
    {
      method: "POST",
      pattern: /^\/v1\/org\/meetings\/([^/]+)\/attendees$/,
      permission: "meeting.modify",
      handle: ({ params, body }) => ({ status: 201, body: { status: "success", data: state.addAttendee(params[0]!, body) } }),
    },
  ];
}
