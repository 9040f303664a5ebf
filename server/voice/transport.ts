import type { VoiceEventTransport } from "@/server/voice/simulator/simulator";
import { signVoiceEvent } from "@/server/voice/signature";
import type { ToolCallResult, VoiceProviderEvent } from "@/server/voice/types";

export type FetchLike = (request: Request) => Promise<Response>;

/**
 * Posts provider events, signed, to the entry point `POST /api/voice/events`: over HTTP in the running app
 * (`fetch` = the global fetch), or straight into the route handler in tests (`fetch` = the route's `POST`).
 */
export function createFetchTransport(options: { url: string; fetch?: FetchLike; secret?: Buffer; timeoutMs?: number }): VoiceEventTransport {
  const send: FetchLike = options.fetch ?? ((request) => fetch(request));
  return async (event: VoiceProviderEvent): Promise<ToolCallResult | null> => {
    const body = JSON.stringify(event);
    const request = new Request(options.url, {
      method: "POST",
      // identity: the answers are a few bytes on a loopback or LAN link; compressing each (a zlib stream per response)
      // cost the app more CPU than the whole answer.
      headers: { "content-type": "application/json", "accept-encoding": "identity", ...signVoiceEvent(body, { secret: options.secret }) },
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const response = await send(request);
    const text = await response.text();
    if (!response.ok) throw new Error(`voice event ${event.type} for ${event.callId} was refused: ${response.status} ${text.slice(0, 200)}`);
    if (event.type !== "call.tool") return null;
    const parsed = JSON.parse(text) as { result?: ToolCallResult };
    return parsed.result ?? { ok: false, message: "empty tool result" };
  };
}
