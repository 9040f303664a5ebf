import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { forgetRecordingOrigin, trustRecordingOrigin } from "@/server/voice/recording-origins";
import { createConversationWav, seedOf } from "./wav";

/** Longest recording the host synthesizes (a day of 8 kHz 8-bit audio is 691 MB; a simulated call lasts minutes). */
const MAX_RECORDING_SECONDS = 3 * 3600;

export type SimulatorRecordingHost = {
  /** The URL of one call's recording (the host starts listening on first use). */
  urlFor(callId: string, seconds: number): Promise<string>;
  /** Starts listening (if not yet) and resolves to the host's origin, `http://127.0.0.1:<port>`. */
  origin(): Promise<string>;
  /** How many recordings were served (GET with a body). */
  servedCount(): number;
  close(): Promise<void>;
};

/**
 * The simulator's recording host, as a provider hosts its recordings (Twilio's `RecordingUrl`): a small HTTP server
 * on the loopback interface, separate from the app's, whose URLs name the call and the length and carry an HMAC
 * (a random per-host key), so only URLs the simulator issued are served — nobody can ask it for a day of audio. The
 * audio is synthesized on each GET from (callId, seconds), exactly the WAV the inline form carried: the host keeps
 * nothing per call. Its origin is registered as a trusted recording origin for the entry point's download.
 */
export function createSimulatorRecordingHost(): SimulatorRecordingHost {
  const key = randomBytes(32);
  let served = 0;
  let origin: Promise<string> | null = null;
  let server: http.Server | null = null;

  const signatureOf = (callId: string, seconds: number) => createHmac("sha256", key).update(`${callId}\n${seconds}`).digest("base64url");

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const refuse = (status: number, message: string) => {
      res.writeHead(status, { "content-type": "text/plain", "cache-control": "no-store" }).end(message);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return refuse(405, "GET or HEAD only");
    const url = new URL(req.url ?? "/", "http://simulator");
    const match = /^\/recordings\/([A-Za-z0-9._-]{1,200})\.wav$/.exec(url.pathname);
    const seconds = Number(url.searchParams.get("seconds"));
    const given = Buffer.from(url.searchParams.get("signature") ?? "");
    if (!match || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_RECORDING_SECONDS) return refuse(404, "no such recording");
    const expected = Buffer.from(signatureOf(match[1]!, seconds));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse(404, "no such recording");
    const wav = createConversationWav({ seconds, seed: seedOf(match[1]!) });
    res.writeHead(200, { "content-type": "audio/wav", "content-length": String(wav.byteLength), "cache-control": "private, no-store" });
    if (req.method === "HEAD") return res.end();
    served += 1;
    res.end(wav);
  };

  const listen = () =>
    (origin ??= new Promise<string>((resolve, reject) => {
      const created = http.createServer(handle);
      created.keepAliveTimeout = 30_000;
      created.once("error", reject);
      created.listen(0, "127.0.0.1", () => {
        server = created;
        created.unref();
        const value = `http://127.0.0.1:${(created.address() as AddressInfo).port}`;
        trustRecordingOrigin(value);
        resolve(value);
      });
    }));

  return {
    async urlFor(callId, seconds) {
      const whole = Math.max(1, Math.min(MAX_RECORDING_SECONDS, Math.round(seconds)));
      const base = await listen();
      return `${base}/recordings/${encodeURIComponent(callId)}.wav?seconds=${whole}&signature=${signatureOf(callId, whole)}`;
    },
    origin: listen,
    servedCount: () => served,
    async close() {
      const listening = server;
      if (!listening || !origin) return;
      forgetRecordingOrigin(await origin);
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      });
      server = null;
      origin = null;
    },
  };
}
