import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BookingMode } from "@/db/schema";
import { runAgentTests } from "@/inngest/functions/run-agent-tests";
import { seedAgentTestCases } from "@/server/seed/agent-test-cases";
import { demoAgentConfig } from "@/server/seed/demo-seed";
import { createTestRun, getTestRun } from "@/server/services/agent-tests/test-runs";
import { createAgent } from "@/server/services/agents/create-agent";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { stopEmbeddedOpenAiSimulator } from "@/server/simulators/openai-realtime/embedded";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
import { createConnectedOrganization, useChiliPiperSimulator } from "../meetings/helpers";

const db = useTestDb();
const sim = useChiliPiperSimulator();
let runner: TestInngest;

beforeAll(async () => {
  runner = await startTestInngest({ db, functions: [runAgentTests] });
});
afterAll(async () => {
  await runner?.stop();
  await stopEmbeddedOpenAiSimulator();
});

describe("the demo seed's test cases", () => {
  it("pass on the embedded default for every kind of demo agent (link, CRM, concierge, no calendar, no definitions)", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const now = new Date();
    const agents: Array<{ agentId: string; timezone: string; hasCalendar: boolean }> = [];
    for (const mode of ["link", "crm", "concierge"] as BookingMode[]) {
      const bookingConfig = await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig(mode) });
      const agent = await createAgent(db, { organizationId: organization.id, ...demoAgentConfig(`${mode} agent`), bookingConfig });
      agents.push({ agentId: agent.id, timezone: "America/New_York", hasCalendar: true });
    }
    const plain = await createAgent(db, { organizationId: organization.id, ...demoAgentConfig("Globex Agent") });
    // The large organization's agents: no variables, one outcome.
    const bare = await createAgent(db, { organizationId: organization.id, name: "Agent 001", outcomes: [{ name: "Interested" }] });
    agents.push({ agentId: plain.id, timezone: "America/New_York", hasCalendar: false }, { agentId: bare.id, timezone: "America/New_York", hasCalendar: false });
    await seedAgentTestCases(db, { organizationId: organization.id, agents, now });

    const runs = [];
    for (const agent of agents) runs.push(await createTestRun(db, { organizationId: organization.id, agentId: agent.agentId, source: "console", actorUserId: null, now }));
    await runner.drain();
    for (const [index, run] of runs.entries()) {
      const done = await getTestRun(db, { organizationId: organization.id, agentId: agents[index]!.agentId, runId: run.runId });
      expect(done.total).toBe(agents[index]!.hasCalendar ? 4 : 3);
      expect(done.results.filter((result) => result.status !== "passed").map((result) => `${result.name}: ${result.reason}`)).toEqual([]);
    }
  });
});
