import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { callEnded } from "@/inngest/events";
import { getConfig } from "@/server/config/env";
import { getListenHub } from "@/server/voice/listen";
import { createTwilioRealtimeEngine, type TwilioRealtimeEngine } from "@/server/voice/twilio-realtime/engine";
import { readTwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import type { CarrierEngine } from "../engine-types";

export const twilioRealtimeEngine: CarrierEngine = {
  create: () =>
    createTwilioRealtimeEngine({
      settings: readTwilioRealtimeSettings(getConfig().raw),
      getDb,
      listenHub: getListenHub,
      // One run per call: a repeated announcement of an event that did arrive is dropped by its ID.
      announceCallEnded: async (callId) => void (await inngest.send(callEnded.create({ callId }, { id: `call-ended:${callId}` }))),
    }),
  handles: (engine) => {
    // The registry only hands this entry engines of its own kind (./engines.ts).
    const twilio = engine as TwilioRealtimeEngine;
    return { twilioRealtime: twilio, endCallsInTheAir: (budgetMs) => twilio.endLiveCalls(budgetMs) };
  },
};
