import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { eq } from "drizzle-orm";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import type { Db } from "@/db";
import { calls } from "@/db/schema";
import { INTERNAL_ERROR_MESSAGE } from "@/server/errors";
import { parseQuery } from "@/server/http/query-params";
import { isSameOriginUpgrade, refuseUpgrade, type UpgradeRefusal } from "@/server/http/upgrades";
import { idText } from "@/server/schemas/text";
import type { SessionActor } from "@/server/auth/session-actor";
import { findMembership, findOrganizationById } from "@/server/services/members/list-my-organizations";
import { getLogger } from "@/server/observability/logger";
import type { ListenHub } from "./listen-hub";
import { startSimulatedListenSource } from "./simulated-source";

export const LISTEN_PATH = "/ws/listen";
/** Roles that may listen to a live call: supervisors (support) and admins; members see the call, they do not hear it. */
export const LISTEN_ROLES = ["admin", "support"] as const;
const CALL_STATE_POLL_MS = 1500;

export type ListenSocketDeps = {
  getDb: () => Db;
  hub: () => ListenHub;
  /** The signed-in person of the upgrade request (next-auth session cookie), or null. */
  readActor: (request: IncomingMessage) => Promise<SessionActor | null>;
  /** The deterministic simulator has no media stream: its listeners hear synthesized audio made here. */
  simulatedAudio: () => boolean;
};

export const ZListenQuerySchema = z.object({ callId: idText().describe("The live call to listen to, format `call.<id>`.") });

/**
 * `GET /ws/listen?callId=…` (WebSocket): a supervisor listens to a live call. Checked before the upgrade, in order,
 * each refusal an HTTP answer `{error, message}`: the page's Origin is this app's — a missing one too, as for the
 * test-call socket (403); the query (400 INVALID_REQUEST: server/http/query-params.ts, so a NUL never reaches the
 * database); a signed-in session (401); the call exists and its organization counts the person as a member (404
 * otherwise — another organization's call does not exist for them); their role may listen (403); the call is live
 * (409). Then: one JSON message `{type:"ready", encoding:"mulaw", sampleRate:8000}`, binary frames of the call's mixed
 * audio (both sides, µ-law) as they come, and `{type:"ended"}` when the call is over. Closing the socket changes
 * nothing on the call.
 */
export function createListenSocketHandler(deps: ListenSocketDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  const simulated = new Map<string, { stop: () => void; listeners: number }>();

  async function authorize(request: IncomingMessage): Promise<{ refused: UpgradeRefusal } | { callId: string }> {
    if (!isSameOriginUpgrade(request)) return { refused: { error: "FORBIDDEN", message: "Listening opens only from the console's own pages (Origin)." } };
    const parsed = parseQuery(ZListenQuerySchema, request.url ?? "/");
    if (!parsed.ok) return { refused: parsed.refusal.body };
    const { callId } = parsed.query;
    const actor = await deps.readActor(request);
    if (!actor) return { refused: { error: "UNAUTHORIZED", message: "Sign in to listen to calls." } };
    const db = deps.getDb();
    const [call] = await db.select({ organizationId: calls.organizationId, resultType: calls.resultType }).from(calls).where(eq(calls.id, callId)).limit(1);
    const notFound: UpgradeRefusal = { error: "CALL_NOT_FOUND", message: `Call ${callId} was not found.` };
    if (!call) return { refused: notFound };
    const organization = await findOrganizationById(db, { organizationId: call.organizationId });
    const membership = await findMembership(db, { userId: actor.userId, orgId: organization.orgId });
    if (!membership) return { refused: notFound };
    if (!(LISTEN_ROLES as readonly string[]).includes(membership.role)) return { refused: { error: "FORBIDDEN", message: "Only support and admin members may listen to calls." } };
    if (call.resultType !== "Calling") return { refused: { error: "CONFLICT", message: `Call ${callId} is not live.` } };
    return { callId };
  }

  function attachSimulated(callId: string): () => void {
    let entry = simulated.get(callId);
    if (!entry) {
      entry = { stop: startSimulatedListenSource(deps.hub(), callId), listeners: 0 };
      simulated.set(callId, entry);
    }
    entry.listeners += 1;
    return () => {
      entry.listeners -= 1;
      if (entry.listeners > 0) return;
      entry.stop();
      if (simulated.get(callId) === entry) simulated.delete(callId);
    };
  }

  function serve(ws: WebSocket, callId: string) {
    ws.send(JSON.stringify({ type: "ready", callId, encoding: "mulaw", sampleRate: 8000 }));
    const unsubscribe = deps.hub().subscribe(callId, (frame) => {
      // A listener that cannot keep up loses audio, never delays the call.
      if (ws.readyState === ws.OPEN && ws.bufferedAmount < 64_000) ws.send(frame, { binary: true });
    });
    const detachSimulated = deps.simulatedAudio() ? attachSimulated(callId) : () => {};
    const poll = setInterval(() => {
      void deps
        .getDb()
        .select({ resultType: calls.resultType })
        .from(calls)
        .where(eq(calls.id, callId))
        .limit(1)
        .then(([row]) => {
          if (row?.resultType === "Calling" || ws.readyState !== ws.OPEN) return;
          ws.send(JSON.stringify({ type: "ended", callId }));
          ws.close(1000, "call ended");
        })
        .catch(() => {});
    }, CALL_STATE_POLL_MS);
    ws.on("close", () => {
      clearInterval(poll);
      unsubscribe();
      detachSimulated();
    });
    ws.on("message", () => {});
  }

  return {
    path: LISTEN_PATH,
    handle(request: IncomingMessage, socket: Duplex, head: Buffer) {
      void authorize(request)
        .then((verdict) => {
          if ("refused" in verdict) return refuseUpgrade(socket, verdict.refused);
          wss.handleUpgrade(request, socket, head, (ws) => serve(ws, verdict.callId));
        })
        .catch((error: unknown) => {
          getLogger("listen").error({ err: error }, "listen socket: the check before the upgrade failed");
          refuseUpgrade(socket, { error: "INTERNAL_SERVER_ERROR", message: INTERNAL_ERROR_MESSAGE });
        });
    },
    close() {
      for (const entry of simulated.values()) entry.stop();
      simulated.clear();
      for (const client of wss.clients) client.terminate();
    },
  };
}
