import { describe, expect, it } from "vitest";
import type { TransferConfig } from "@/db/schema";
import { analyzeWithRules } from "@/server/analysis/rule-based";
import { creditsForCall, humanLegSecondsOf } from "@/server/services/call-engine/charging";
import { dtmfAudio } from "@/server/simulators/twilio/conference";
import { parseTwiml } from "@/server/simulators/twilio/twiml";
import { ulawRms } from "@/server/voice/g711";
import { planSimulatedCall, renderSimulatedTranscript } from "@/server/voice/simulator/script";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { findTransferTarget, isWithinTransferHours, parseTransferHours, transferConfigIssues } from "@/server/voice/transfer-settings";
import { coldTransferTwiml, holdInConferenceTwiml, playDigitsThenStreamTwiml, whisperThenConferenceTwiml } from "@/server/carriers/twilio/twiml";
import type { VoiceProviderEvent } from "@/server/voice/types";
import { extractionDefinitions, outcomeDefinitions, placeCallRequest } from "./fixtures";

const config = (overrides: Partial<TransferConfig> = {}): TransferConfig => ({
  mode: "cold",
  targets: [
    { label: "Sales", destination: "+12025550220", whenToUse: "pricing" },
    { label: "billing", destination: "sip:billing@pbx.example.test", whenToUse: "invoices" },
  ],
  answerTimeoutSeconds: null,
  hours: null,
  timezone: null,
  fallback: "book_meeting",
  ...overrides,
});

describe("transfer settings", () => {
  it("parse opening hours, and say what does not parse", () => {
    expect(parseTransferHours("Mon-Fri 09:00-17:00; Sat 10:00-13:00")).toEqual([
      { days: [1, 2, 3, 4, 5], startMinute: 540, endMinute: 1020 },
      { days: [6], startMinute: 600, endMinute: 780 },
    ]);
    expect(parseTransferHours("Fri-Mon 22:00-24:00")[0]!.days).toEqual([1, 5, 6, 7]);
    for (const bad of ["", "whenever", "Mon-Fri 9-5", "Mon-Fri 17:00-09:00", "Funday 09:00-10:00", "Mon 09:00-25:00"]) expect(() => parseTransferHours(bad), bad).toThrow();
  });

  it("know whether a person is there, in the hours' zone", () => {
    const hours = { hours: "Mon-Fri 09:00-17:00" };
    expect(isWithinTransferHours(hours, "America/New_York", new Date("2026-03-02T15:00:00Z"))).toBe(true); // Mon 10:00
    expect(isWithinTransferHours(hours, "America/New_York", new Date("2026-03-02T23:00:00Z"))).toBe(false); // Mon 18:00
    expect(isWithinTransferHours(hours, "America/New_York", new Date("2026-03-07T15:00:00Z"))).toBe(false); // Sat
    expect(isWithinTransferHours({ hours: null }, "UTC", new Date())).toBe(true);
  });

  it("name each broken rule with its field: destination, warm without a timeout, hours, timezone, duplicate labels", () => {
    const issues = transferConfigIssues(
      config({
        mode: "warm",
        targets: [
          { label: "sales", destination: "555-0100", whenToUse: "" },
          { label: "Sales", destination: "sip:nobody", whenToUse: "" },
        ],
        hours: "sometimes",
        timezone: "Mars/Base",
      }),
      (zone) => zone !== "Mars/Base",
    ).map((issue) => issue.path);
    expect(issues).toEqual([
      "transferConfig.targets.0.destination",
      "transferConfig.targets.1.label",
      "transferConfig.targets.1.destination",
      "transferConfig.answerTimeoutSeconds",
      "transferConfig.hours",
      "transferConfig.timezone",
    ]);
    expect(transferConfigIssues(config(), () => true)).toEqual([]);
    expect(transferConfigIssues(config({ targets: [] }), () => true).map((issue) => issue.path)).toEqual(["transferConfig.targets"]);
  });

  it("find the target by label in any case, or by destination", () => {
    expect(findTransferTarget(config(), "sales")?.destination).toBe("+12025550220");
    expect(findTransferTarget(config(), "sip:billing@pbx.example.test")?.label).toBe("billing");
    expect(findTransferTarget(config(), "legal")).toBeNull();
  });
});

describe("transfer and keypad TwiML, as the Twilio simulator reads it", () => {
  it("cold <Dial> with our caller ID and an action; warm hold and whisper; keys then the stream again", () => {
    expect(parseTwiml(coldTransferTwiml({ destination: "+12025550220", callerId: "+12025550101", timeoutSeconds: 20, timeLimitSeconds: 600, action: "https://x.test/a", sip: false }))).toEqual([
      { verb: "Dial", target: { kind: "number", destination: "+12025550220" }, action: "https://x.test/a", method: "POST", callerId: "+12025550101", timeout: 20, timeLimit: 600 },
    ]);
    expect(parseTwiml(coldTransferTwiml({ destination: "sip:billing@pbx.example.test", callerId: "+12025550101", timeoutSeconds: 20, timeLimitSeconds: 600, action: "https://x.test/a", sip: true }))[0]).toMatchObject({
      target: { kind: "number", destination: "sip:billing@pbx.example.test" },
    });
    expect(parseTwiml(holdInConferenceTwiml({ conferenceName: "room" }))[0]).toMatchObject({ target: { kind: "conference", name: "room", startConferenceOnEnter: false, endConferenceOnExit: true, waitUrl: null } });
    const whisper = parseTwiml(whisperThenConferenceTwiml({ whisper: "Incoming transfer for sales.", conferenceName: "room" }));
    expect(whisper.map((verb) => verb.verb)).toEqual(["Say", "Dial"]);
    const keys = parseTwiml(playDigitsThenStreamTwiml({ digits: "1w2", streamUrl: "wss://x.test/ws/voice/twilio", token: "tok" }));
    expect(keys).toEqual([
      { verb: "Play", digits: "1w2", url: null, loop: 1 },
      { verb: "Connect.Stream", url: "wss://x.test/ws/voice/twilio", parameters: { token: "tok", resume: "digits:1w2" } },
    ]);
    expect(ulawRms(dtmfAudio("1"))).toBeGreaterThan(1000);
  });
});

describe("charging a transferred call", () => {
  it("the agent's part and the person's part, each by its own started minutes", () => {
    expect(creditsForCall("Goal Not Completed", 170, 0)).toBe(3);
    expect(creditsForCall("Goal Not Completed", 170, 120)).toBe(1 + 2);
    expect(creditsForCall("Goal Not Completed", 130, 70)).toBe(1 + 2);
    expect(creditsForCall("Busy", 170, 120)).toBe(0);
    expect(humanLegSecondsOf([{ description: "", status: "completed", actionKey: "transfer_call", completedAt: "", metadata: { humanLegSeconds: 95 } }])).toBe(95);
  });
});

describe("the deterministic simulator with an agent that transfers", () => {
  const startedAt = new Date("2026-03-02T15:00:00Z");
  const withTransfer = (destination: string, overrides: Partial<TransferConfig> = {}) =>
    placeCallRequest("+12025550101", { agent: { ...placeCallRequest("+1").agent, transfer: config({ targets: [{ label: "sales", destination, whenToUse: "" }], ...overrides }), timezone: "America/New_York" } });

  it("digit 1: the contact asks for a person; the target's last digit decides; the analysis still reads Goal Not Completed", () => {
    for (const [destination, outcome, said] of [
      ["+12025550220", "completed", "putting you through to sales"],
      ["+12025550223", "busy", "could not pick up"],
      ["+12025550224", "no-answer", "could not pick up"],
    ] as const) {
      const request = withTransfer(destination);
      const plan = planSimulatedCall(request, startedAt);
      expect(plan.transfer, destination).toMatchObject({ outcome });
      const transcript = renderSimulatedTranscript(request, plan, startedAt, null)!;
      expect(transcript).toContain("could I talk to someone from sales");
      expect(transcript).toContain(said);
      const analysis = analyzeWithRules({
        callId: request.callId,
        disposition: "answered",
        transcript,
        durationSeconds: plan.durationSeconds,
        endedAt: startedAt,
        agent: { name: "Ava" },
        contact: { name: "Jane Doe", timezone: "America/New_York", variables: request.contact.variables },
        extractionDefinitions,
        outcomeDefinitions,
        meeting: null,
        errorMessage: null,
      });
      expect(analysis.resultType, destination).toBe("Goal Not Completed");
    }
    expect(planSimulatedCall(withTransfer("+12025550220", { hours: "Sat 09:00-10:00" }), startedAt).transfer).toMatchObject({ outcome: "outside-hours" });
    expect(planSimulatedCall(placeCallRequest("+12025550101"), startedAt).transfer).toBeNull();
  });

  it("reports the transfer as a provider tool event, before the call ends", async () => {
    const events: VoiceProviderEvent[] = [];
    const engine = createSimulatedVoiceEngine({ pace: "manual", transport: async (event) => (events.push(event), null), now: () => startedAt });
    await engine.placeCall(withTransfer("+12025550221", { mode: "warm", answerTimeoutSeconds: 20 }));
    await engine.runPending();
    const tool = events.find((event) => event.type === "call.tool");
    expect(tool).toMatchObject({ tool: "transfer_call", arguments: { targetLabel: "sales", mode: "warm", answered: true, outcome: "completed" } });
    expect(events.findIndex((event) => event.type === "call.tool")).toBeLessThan(events.findIndex((event) => event.type === "call.ended"));
  });
});
