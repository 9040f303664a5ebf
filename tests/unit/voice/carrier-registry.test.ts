import { ESLint } from "eslint";
import { afterEach, describe, expect, it } from "vitest";
import { carrierEngineHandles } from "@/server/carriers/engines";
import { CARRIER_NAMES, carrierOfEngine, configuredCarrierName, isCarrierName, voiceCarrier } from "@/server/carriers/registry";
import { getTwilioRealtimeEngine, setVoiceEngine, startVoiceEngine } from "@/server/voice";
import { VoiceSettingsError } from "@/server/voice/twilio-realtime/settings";
import type { VoiceEngine } from "@/server/voice/types";

const capabilities = (name: string) => {
  const { dialsDemoData, simulatesCallbacks, answersInboundAsHuman, takesInboundMessages, streamsRealAudio, postsEventsToLoopback } = voiceCarrier(name);
  return { dialsDemoData, simulatesCallbacks, answersInboundAsHuman, takesInboundMessages, streamsRealAudio, postsEventsToLoopback };
};

const fakeEngine = (kind: string): VoiceEngine => ({
  kind,
  maxCallWallSeconds: 60,
  placeCall: async () => ({ providerCallId: "p", alreadyPlaced: false }),
  callState: async () => ({ state: "unknown" }),
});

describe("carrier registry (server/carriers/registry.ts)", () => {
  afterEach(() => setVoiceEngine(undefined));

  it("names the carriers, the simulator first (the default)", () => {
    expect(CARRIER_NAMES).toEqual(["simulator", "twilio-realtime"]);
    expect(configuredCarrierName({})).toBe("simulator");
    expect(configuredCarrierName({ VOICE_ENGINE: " twilio-realtime " })).toBe("twilio-realtime");
  });

  it("declares what each carrier does", () => {
    expect(capabilities("simulator")).toEqual({
      dialsDemoData: true,
      simulatesCallbacks: true,
      answersInboundAsHuman: false,
      takesInboundMessages: false,
      streamsRealAudio: false,
      postsEventsToLoopback: true,
    });
    expect(capabilities("twilio-realtime")).toEqual({
      dialsDemoData: false,
      simulatesCallbacks: false,
      answersInboundAsHuman: true,
      takesInboundMessages: true,
      streamsRealAudio: true,
      postsEventsToLoopback: false,
    });
  });

  it("checks each carrier's own settings and lists its non-secret facts", () => {
    expect(() => voiceCarrier("simulator").readSettings({})).not.toThrow();
    expect(() => voiceCarrier("twilio-realtime").readSettings({})).toThrow(VoiceSettingsError);
    expect(voiceCarrier("simulator").facts({ REALTIME_MODEL: "m" }).map((fact) => fact.label)).toEqual(["Phone calls", "Outcome"]);
    expect(voiceCarrier("twilio-realtime").facts({ REALTIME_MODEL: "gpt-realtime", PUBLIC_BASE_URL: "https://calls.example.com" })).toEqual([
      { label: "Phone calls", value: "Twilio" },
      { label: "Conversation model", value: "OpenAI Realtime (gpt-realtime)" },
      { label: "Public address Twilio calls back", value: "https://calls.example.com" },
    ]);
  });

  it("refuses an unknown name with the names it knows", () => {
    expect(isCarrierName("carrier-pigeon")).toBe(false);
    expect(isCarrierName("toString")).toBe(false);
    expect(() => voiceCarrier("carrier-pigeon")).toThrow('Voice carrier "carrier-pigeon" is unknown; use one of simulator, twilio-realtime.');
    expect(() => voiceCarrier("toString")).toThrow(/unknown/);
    expect(() => configuredCarrierName({ VOICE_ENGINE: "carrier-pigeon" })).toThrow("VOICE_ENGINE=carrier-pigeon is unknown; use one of simulator, twilio-realtime.");
  });

  it("gives an engine no carrier made (a test's double) none of the carrier-specific capabilities or handles", () => {
    expect(carrierOfEngine("test-double")).toMatchObject({ dialsDemoData: false, simulatesCallbacks: false, streamsRealAudio: false, answersInboundAsHuman: false });
    expect(carrierEngineHandles(fakeEngine("test-double"))).toEqual({});
  });

  it("hands the Twilio engine's own entry points only for the twilio-realtime carrier", () => {
    const twilioKinded = fakeEngine("twilio-realtime");
    expect(carrierEngineHandles(twilioKinded).twilioRealtime).toBe(twilioKinded);
    expect(carrierEngineHandles(twilioKinded).endCallsInTheAir).toBeTypeOf("function");
    // An in-process simulator has nothing to start, stop or end at the shutdown.
    expect(carrierEngineHandles(fakeEngine("simulator"))).toEqual({});
  });

  it("starts and stops an engine through its carrier's handles (server/voice/index.ts asks no kind)", async () => {
    const seen: string[] = [];
    // The simulator in its own process (the shape of SimulatorProcessEngine): ready at start, stopped and hung up at the shutdown.
    const processEngine = Object.assign(fakeEngine("simulator"), {
      pid: 1,
      ready: async () => void seen.push("ready"),
      stop: async (budgetMs: number) => void seen.push(`stop ${budgetMs}`),
      hangUpAll: async () => (seen.push("hang up all"), 3),
    });
    setVoiceEngine(processEngine);
    const simulator = await startVoiceEngine();
    expect(simulator.engine).toBe(processEngine);
    await simulator.stop!(500);
    expect(await simulator.endCallsInTheAir!(500)).toBe(3);
    expect(seen).toEqual(["ready", "stop 500", "hang up all"]);
    expect(getTwilioRealtimeEngine()).toBeNull();

    const twilio = Object.assign(fakeEngine("twilio-realtime"), { endLiveCalls: async (budgetMs: number) => budgetMs / 100 });
    setVoiceEngine(twilio);
    const real = await startVoiceEngine();
    expect(real.stop).toBeUndefined();
    expect(await real.endCallsInTheAir!(700)).toBe(7);
    expect(getTwilioRealtimeEngine()).toBe(twilio);

    setVoiceEngine(fakeEngine("test-double"));
    expect(await startVoiceEngine()).toMatchObject({ stop: undefined, endCallsInTheAir: undefined });
    expect(getTwilioRealtimeEngine()).toBeNull();
  });

  it("is the only place where a carrier's name may be compared (eslint.config.mjs)", async () => {
    const eslint = new ESLint();
    const code = 'export const real = (kind: string) => kind === "twilio-realtime" || kind !== "simulator";\n';
    const [outside] = await eslint.lintText(code, { filePath: "server/services/example.ts" });
    expect(outside!.messages.filter((message) => message.ruleId === "no-restricted-syntax")).toHaveLength(2);
    const [inside] = await eslint.lintText(code, { filePath: "server/carriers/example.ts" });
    expect(inside!.messages.filter((message) => message.ruleId === "no-restricted-syntax")).toHaveLength(0);
  });

  it("each provider SDK is imported only in its own folder: the Realtime SDK in the conversation, twilio and telnyx in their carriers (eslint.config.mjs)", async () => {
    const eslint = new ESLint();
    const code = [
      'import twilio from "twilio";',
      'import type { RequestOptions } from "twilio/lib/base/RequestClient";',
      'import Telnyx from "telnyx";',
      'import { RealtimeAgent } from "@openai/agents-realtime";',
      'import { TwilioRealtimeTransportLayer } from "@openai/agents-extensions";',
      "export const all: unknown[] = [twilio, Telnyx, RealtimeAgent, TwilioRealtimeTransportLayer];",
      "export type Options = RequestOptions<unknown>;",
      "",
    ].join("\n");
    const refused = async (filePath: string) => {
      const [result] = await eslint.lintText(code, { filePath });
      return result!.messages.filter((message) => message.ruleId === "no-restricted-imports").map((message) => message.message.match(/'([^']+)'/)![1]);
    };
    const sdks = { twilio: ["twilio", "twilio/lib/base/RequestClient"], telnyx: ["telnyx"], realtime: ["@openai/agents-realtime", "@openai/agents-extensions"] };
    expect(await refused("server/voice/twilio-realtime/example.ts")).toEqual([...sdks.twilio, ...sdks.telnyx, ...sdks.realtime]);
    expect(await refused("server/carriers/twilio/example.ts")).toEqual([...sdks.telnyx, ...sdks.realtime]);
    expect(await refused("server/carriers/telnyx/example.ts")).toEqual([...sdks.twilio, ...sdks.realtime]);
    expect(await refused("server/voice/conversation/example.ts")).toEqual([...sdks.twilio, ...sdks.telnyx]);
    // A folder of ours that only shares a name with an SDK is not an SDK.
    const [own] = await eslint.lintText('export { voiceResponse } from "@/server/carriers/twilio/twiml";\n', { filePath: "server/voice/twilio-realtime/example.ts" });
    expect(own!.messages.filter((message) => message.ruleId === "no-restricted-imports")).toEqual([]);
  });
});
