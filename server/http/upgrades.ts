import http, { type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { appBaseUrl } from "@/server/config/settings";
import { ERROR_TABLE, type AppErrorCode } from "@/server/errors";

/**
 * Every WebSocket the app serves lives under this prefix, and no Next.js route or page does: an upgrade under it is
 * answered by our handlers only, never passed on to Next (whose router would match a page or route and end the
 * socket right after our 101 — the bug of 2026-11-27, see docs/deploy.md "WebSockets").
 */
export const WEBSOCKET_PREFIX = "/ws/";

/** Takes over the socket for one path (it answers 101 or refuses with an HTTP status itself). */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export type UpgradeRoute = { path: string; handle: UpgradeHandler };

/**
 * Refuses an upgrade with an HTTP answer instead of the 101, in the app's error shape: `{error, message}` with the
 * status of the error table (a WebSocket client sees the status; a person debugging sees why).
 */
export type UpgradeRefusal = { error: AppErrorCode; message: string; details?: Record<string, unknown> };

export function refuseUpgrade(socket: Duplex, refusal: UpgradeRefusal): void {
  const status = ERROR_TABLE[refusal.error].status;
  const body = JSON.stringify(refusal);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The browser's WebSocket from a page of this app: its `Origin` is the configured base URL's, or the Host it used.
 * No Origin at all is refused too — browsers always send one, and a session cookie rides along on any site's
 * WebSocket (the console's sockets: the test call and listening in).
 */
export function isSameOriginUpgrade(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (!origin) return false;
  try {
    const url = new URL(origin);
    return url.origin === new URL(appBaseUrl()).origin || url.host === request.headers.host;
  } catch {
    return false;
  }
}

/**
 * The one `upgrade` listener of the production server. Upgrades under `/ws/` go to the route registered for their
 * exact path (404 otherwise); every other upgrade goes to Next.js (`next`: in `next dev`, its HMR socket), which is
 * attached to a stand-in server of its own (startHttpServer), so it never sees ours.
 */
export function createUpgradeRouter(options: { routes: () => readonly UpgradeRoute[]; next: UpgradeHandler | null }) {
  return (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const path = (request.url ?? "").split("?")[0]!;
    if (path.startsWith(WEBSOCKET_PREFIX)) {
      const route = options.routes().find((candidate) => candidate.path === path);
      if (!route) return refuseUpgrade(socket, { error: "NOT_FOUND", message: "No WebSocket is served at this path." });
      route.handle(request, socket, head);
      return;
    }
    if (options.next) options.next(request, socket, head);
    else refuseUpgrade(socket, { error: "NOT_FOUND", message: "No WebSocket is served at this path." });
  };
}
