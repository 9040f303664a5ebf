import type { Db } from "@/db";
import type { ToolCallResult } from "@/server/voice/types";
import { findTwilioCall, isFinalStatus } from "./call-state";
import { mediaStreamPublicUrl, type TwilioRealtimeSettings } from "./settings";
import { createStreamToken } from "./stream-token";
import { twilioErrorCode, type TwilioClient } from "@/server/carriers/twilio/twilio-client";
import { appendAgentAction } from "./transfer-state";
import { playDigitsThenStreamTwiml } from "@/server/carriers/twilio/twiml";

/** Keys Twilio can play (twilio.com/docs/voice/twiml/play#attributes-digits): 0-9, *, #, and `w` for half a second. */
export const DTMF_DIGITS = /^[0-9*#wW]{1,32}$/;

export type DtmfDeps = {
  settings: TwilioRealtimeSettings;
  client: TwilioClient;
  getDb: () => Db;
  now: () => Date;
  log: (message: string, error?: unknown) => void;
};

/**
 * Phone menus (docs/call-engine.md "Phone menus"). Media Streams carry audio only, so keys are pressed the way Twilio
 * plays them on a live call: the call is redirected to `<Play digits>` followed by `<Connect><Stream>` again (a
 * `resume` parameter tells the bridge to carry the same conversation on, its transcript re-created in the new Realtime
 * session). The keys are recorded on the call (`agentActions`, `press_digits`).
 */
export function createDtmf(deps: DtmfDeps) {
  return {
    /** The `press_digits` tool's check: answered to the model, never thrown. */
    check(digits: string): ToolCallResult | null {
      return DTMF_DIGITS.test(digits) ? null : { ok: false, message: `"${digits}" cannot be pressed: use the keys 0-9, * and # (w waits half a second), at most 32.` };
    },

    async press(params: { callId: string; digits: string; reason: string | null }): Promise<void> {
      const db = deps.getDb();
      const now = deps.now();
      await appendAgentAction(db, params.callId, {
        description: `Pressed ${params.digits} on the keypad${params.reason ? ` (${params.reason})` : ""}`,
        status: "completed",
        actionKey: "press_digits",
        completedAt: now.toISOString(),
        metadata: { digits: params.digits, reason: params.reason },
      });
      const call = await findTwilioCall(db, params.callId);
      if (!call?.callSid || isFinalStatus(call.status)) return;
      const token = createStreamToken({ callId: params.callId, authToken: deps.settings.twilio.authToken, now });
      try {
        await deps.client.calls(call.callSid).update({ twiml: playDigitsThenStreamTwiml({ digits: params.digits, streamUrl: mediaStreamPublicUrl(deps.settings), token }) });
      } catch (error) {
        if (twilioErrorCode(error) !== 21220) deps.log(`pressing keys on ${params.callId} failed`, error);
      }
    },

    resumeNote(digits: string): string {
      return `[You pressed ${digits} on the phone menu. Keep listening: say nothing to a recording; when a person answers, greet them and go on with the call's goal; press keys again if another menu asks.]`;
    },
  };
}

export type Dtmf = ReturnType<typeof createDtmf>;
