import { describe, expect, it } from "vitest";
import { ZCallEventPayloadSchema } from "@/server/schemas/call";
import { createTestAgent, createTestOrganization } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();
const NOW = new Date("2026-11-20T14:07:31.000Z");
const api = apiClient(db, { now: () => NOW });

const definitions = {
  timezones: ["America/Chicago"],
  phoneNumbers: ["+13125550100"],
  inputVariables: [
    { slug: "company_name", displayName: "Company name", required: true },
    { slug: "crm_ref", displayName: "CRM reference" },
  ],
  extractedVariables: [
    { slug: "interest_level", type: "DROPDOWN" as const, dropdownOptions: ["high", "medium", "low"] },
    { slug: "callback_time", type: "DATE/TIME" as const, datetimeFormat: "yyyy-MM-dd HH:mm", formatDatetimeInUtc: true },
    { slug: "budget", type: "NUMBER" as const },
    { slug: "decision_maker", type: "BOOLEAN" as const },
    { slug: "notes", type: "STRING" as const },
    { slug: "sentiment", type: "STRING" as const, systemDefault: true },
  ],
  outcomes: [
    { name: "Disabled one", enabled: false },
    { name: "Meeting booked" },
    { name: "Not interested" },
  ],
};

describe("GET /agent/{agentId}/call_event_sample", () => {
  it("returns the sample payload itself, built from the agent's configuration, with a meeting when it has a calendar tool", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id, {
      name: "Booker",
      ...definitions,
      bookingConfig: { mode: "link", provider: "chili-piper", schedulingLinkId: "link-1" },
    });
    const res = await api(`/agent/${agent.id}/call_event_sample`, { key: apiKey });
    expect(res.status).toBe(200);
    const sample = res.body;

    expect(Object.keys(sample).sort()).toEqual(
      [
        "agentId", "agentName", "callId", "name", "phoneNumber", "phoneNumberExt", "fromPhoneNumber", "scheduledAt", "timezone",
        "direction", "customInputVariables", "duration", "callUrl", "rescheduledAt", "callResult", "crmSchedulingDetails",
        "sequence", "promptVersionId", "quality",
      ].sort(),
    );
    expect(sample).not.toHaveProperty("recordingUrl");
    expect(sample).toMatchObject({
      agentId: agent.id,
      agentName: "Booker",
      direction: "outbound",
      timezone: "America/Chicago",
      fromPhoneNumber: "+13125550100",
      rescheduledAt: null,
      sequence: { lifecycleStatus: "done" },
    });
    expect(sample.callId).toMatch(/^call\.[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    expect(sample.sequence.sequenceId).toMatch(/^call-sequence\./);
    expect(sample.promptVersionId).toMatch(/^prompt-ver\./);
    expect(Object.keys(sample.customInputVariables)).toEqual(["company_name", "crm_ref"]);

    const extracted = sample.callResult.extractedVariables;
    expect(Object.keys(extracted)).toEqual(["interest_level", "callback_time", "budget", "decision_maker", "notes"]);
    expect(extracted.interest_level).toBe("high");
    expect(extracted.callback_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(typeof extracted.budget).toBe("number");
    expect(typeof extracted.decision_maker).toBe("boolean");
    expect(typeof extracted.notes).toBe("string");

    expect(sample.callResult.outcomes).toEqual([{ name: "Meeting booked", reasoning: expect.any(String) }]);
    expect(sample.callResult.followUpMeetingDetails).toMatchObject({ hostEmail: expect.any(String), meetingLink: expect.any(String) });
    const meeting = sample.callResult.followUpMeetingDetails;
    expect(new Date(meeting.endTime).getTime() - new Date(meeting.startTime).getTime()).toBe(30 * 60_000);
    expect(new Date(meeting.startTime).getTime()).toBeGreaterThan(NOW.getTime());
    expect(sample.crmSchedulingDetails).toMatchObject({ provider: "chili-piper", mode: "link", status: "booked" });

    // Field types match the real webhook payload's schema.
    expect(() =>
      ZCallEventPayloadSchema.omit({ attempt: true, createdAt: true, updatedAt: true, callStatus: true }).strict().parse(sample),
    ).not.toThrow();

    // Stable per agent: the same IDs on every request.
    const again = await api(`/agent/${agent.id}/call_event_sample`, { key: apiKey });
    expect(again.body.callId).toBe(sample.callId);
  });

  it("has no meeting for an agent without a calendar tool, and no outcome when none is configured", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id, { name: "Plain" });
    const res = await api(`/agent/${agent.id}/call_event_sample`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body.callResult).not.toHaveProperty("followUpMeetingDetails");
    expect(res.body.callResult.outcomes).toEqual([]);
    expect(res.body.crmSchedulingDetails).toEqual({});
    expect(res.body.customInputVariables).toEqual({});
  });

  it("answers 404 AGENT_NOT_FOUND for another organization's agent and 401 without a key", async () => {
    const mine = await createTestOrganization(db);
    const theirs = await createTestOrganization(db);
    const agent = await createTestAgent(db, theirs.organization.id);
    const res = await api(`/agent/${agent.id}/call_event_sample`, { key: mine.apiKey });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: "AGENT_NOT_FOUND" });
    const anonymous = await api(`/agent/${agent.id}/call_event_sample`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: "UNAUTHORIZED" });
  });
});
