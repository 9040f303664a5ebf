import http, { type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Every WebSocket the app serves lives under this prefix, and no Next.js route or page does: an upgrade under it is
 * answered by our handlers only, never passed on to Next (whose router would match a page or route and end the
 * socket right after our 101 — the bug of 2026-11-27, see docs/deploy.md "WebSockets").
 */
export const WEBSOCKET_PREFIX = "/ws/";

/** Takes over the socket for one path (it answers 101 or refuses with an HTTP status itself). */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export type UpgradeRoute = { path: string; handle: UpgradeHandler };

function refuse(socket: Duplex, status: number) {
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
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
      if (!route) return refuse(socket, 404);
      route.handle(request, socket, head);
      return;
    }
    if (options.next) options.next(request, socket, head);
    else refuse(socket, 404);
  };
}
