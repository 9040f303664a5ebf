import { getConfig } from "@/server/config/env";
import { processSingleton } from "@/server/runtime/process-singleton";

/**
 * Where a `call.ended` event's `recording.url` may point. The event is signed with the provider secret, so its URL
 * comes from the provider; still, the download is made from inside our network, and a leaked secret must not turn the
 * entry point into a fetcher of internal addresses (SSRF). So only these origins are fetched: the simulator's own
 * recording host (registered by the simulator when it starts listening) and `VOICE_RECORDING_URL_ORIGINS`. The
 * download also refuses redirects (recording-download.ts), so an allowed origin cannot bounce it elsewhere.
 *
 * Process-wide (server/runtime/process-singleton.ts): Next.js may load this module once per bundle, and the simulator
 * and the entry point must agree.
 */
function registeredOrigins(): Set<string> {
  return processSingleton("trustedRecordingOrigins", () => new Set<string>());
}

/** A voice engine hosting recordings in this process (the simulator) announces its origin. */
export function trustRecordingOrigin(origin: string): void {
  registeredOrigins().add(new URL(origin).origin);
}

export function forgetRecordingOrigin(origin: string): void {
  registeredOrigins().delete(new URL(origin).origin);
}

function configuredOrigins(): string[] {
  return (getConfig().VOICE_RECORDING_URL_ORIGINS ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => new URL(entry).origin);
}

/** True when the URL is http(s), carries no credentials and its origin is a trusted recording host. */
export function isTrustedRecordingUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  if (parsed.username || parsed.password) return false;
  return registeredOrigins().has(parsed.origin) || configuredOrigins().includes(parsed.origin);
}
