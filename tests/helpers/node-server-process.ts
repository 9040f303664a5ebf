/**
 * The production HTTP server (server/http/node-server.ts) in a child process of its own, so a test can measure its
 * memory apart from the test's: Next.js is replaced by a stub (no build needed), everything else is the real
 * request handling. Sends `{ port }` when listening; answers "peak" with the highest RSS seen since the last "reset".
 */
import type { AddressInfo } from "node:net";
import { createHttpServer } from "@/server/http/node-server";

/** The stand-in for Next.js answers 404 with the path it was handed (`/_not-found` for the console's 404 page). */
const server = createHttpServer({
  handleNext: (req, res) => {
    res.statusCode = 404;
    res.end(`next ${req.url}`);
  },
});

let peakRss = process.memoryUsage.rss();
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 10).unref();

process.on("message", (message) => {
  if (message === "reset") peakRss = process.memoryUsage.rss();
  if (message === "peak" || message === "reset") process.send!({ peakRss: Math.max(peakRss, process.memoryUsage.rss()), rss: process.memoryUsage.rss() });
});
process.on("disconnect", () => process.exit(0));

server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
