import { randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import { and, eq, inArray, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import type { Db } from "@/db";
import { agents, creditAllocations, creditTransactions, inputVariableDefinitions, memberships, sequences, users, type AgentStep, type MemberRole } from "@/db/schema";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { newId } from "@/server/ids";
import { claimFictionalNumbers } from "@/server/services/numbers/claim-fictional-numbers";
import { createAgent, type CreateAgentParams } from "@/server/services/agents/create-agent";
import { seedAgentTestCases } from "./agent-test-cases";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { createOrganization } from "@/server/services/organizations/create-organization";
import { seedCallHistory } from "@/server/services/call-engine/seed-call-history";
import { seedEnrollments } from "@/server/services/enrollment/seed-enrollments";
import { configureDemoBooking, seedMeetingFixtures } from "./meeting-fixtures";
import { createWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";

export type SeedOptions = { baseUrl: string; webhookUrl?: string; now?: Date };

export type SeededAgent = { agentId: string; name: string; status: string; role: string; requiredInputVariables: string[] };
export type SeededOrganization = {
  key: "primary" | "secondary" | "large";
  orgId: string;
  name: string;
  apiKey: string;
  webhookSecret: string | null;
  agents: SeededAgent[];
  fixtures: Record<string, unknown>;
};
export type SeedResult = {
  baseUrl: string;
  dashboard: { url: string; users: Array<{ email: string; password: string; role: MemberRole }> };
  organizations: SeededOrganization[];
};

/**
 * Demo users: one per role. Their passwords are generated at random on every seed (never a value anyone could know in
 * advance), printed, and kept in $DATA_DIR/demo.json by `npm start` / `npm run seed`.
 */
export const DEMO_USERS: Array<{ email: string; role: MemberRole; name: string }> = [
  { email: "admin@demo.test", role: "admin", name: "Ada Admin" },
  { email: "support@demo.test", role: "support", name: "Sam Support" },
  { email: "member@demo.test", role: "member", name: "Max Member" },
];

function generateDemoPassword(): string {
  return randomBytes(15).toString("base64url");
}

const EVERY_DAY_WINDOW = { startTime: 0, endTime: 1440 };
export const DEMO_STEPS: AgentStep[] = [
  { stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: { dayOffset: 0, timeWindow: EVERY_DAY_WINDOW, timezoneSource: "contact" } },
  { stepType: "CALL", delaySeconds: 86_400, delaySecondsMax: null, executionWindowConfig: { dayOffset: 0, timeWindow: EVERY_DAY_WINDOW, timezoneSource: "contact" } },
];

/**
 * The follow-up agent's cadence (docs/sequences.md): call, email the meeting link, text, call again a day later. Its
 * templates use the contact's name, an input variable, the last call's summary and the booked meeting.
 */
export const DEMO_FOLLOW_UP_STEPS: AgentStep[] = [
  DEMO_STEPS[0]!,
  {
    stepType: "EMAIL",
    delaySeconds: 0,
    delaySecondsMax: null,
    executionWindowConfig: { dayOffset: 0, timeWindow: EVERY_DAY_WINDOW, timezoneSource: "contact" },
    subject: "Next steps for {{company_name}}",
    body: "Hi {{first_name}},\n\nThanks for your time on the phone. {{last_call_summary}}\n\nYour meeting: {{meeting_time}}\nJoin: {{meeting_link}}\n\nBest,\n{{agent_name}}",
  },
  {
    stepType: "SMS",
    delaySeconds: 3600,
    delaySecondsMax: null,
    executionWindowConfig: { dayOffset: 0, timeWindow: EVERY_DAY_WINDOW, timezoneSource: "contact" },
    body: "Hi {{first_name}}, {{agent_name}} here: I emailed you the details for {{company_name}}. Reply STOP to opt out.",
  },
  { ...DEMO_STEPS[1]! },
];

export function demoAgentConfig(name: string, overrides: Partial<CreateAgentParams> = {}): Omit<CreateAgentParams, "organizationId"> {
  return {
    name,
    timezones: ["America/New_York", "America/Los_Angeles"],
    phoneNumbers: [],
    steps: DEMO_STEPS,
    prompt: `You are ${name}. Introduce yourself, confirm the contact's company and try to book a short follow-up meeting.`,
    inputVariables: [
      { slug: "company_name", displayName: "Company name", description: "The contact's company.", required: true },
      { slug: "crm_ref", displayName: "CRM reference", description: "Your CRM record ID; useful as a cancel reference." },
      { slug: "account", displayName: "Account", description: "Account tier or owner." },
      { slug: "legacy_field", displayName: "Legacy field", description: "Deleted: hidden from the API." },
    ],
    extractedVariables: [
      { slug: "interest_level", displayName: "Interest level", description: "How interested the contact sounded.", type: "DROPDOWN", dropdownOptions: ["high", "medium", "low"] },
      { slug: "callback_time", displayName: "Callback time", description: "When the contact asked to be called back.", type: "DATE/TIME", datetimeFormat: "yyyy-MM-dd HH:mm:ss", formatDatetimeInUtc: false },
      { slug: "budget", displayName: "Budget", description: "Budget mentioned, in dollars.", type: "NUMBER" },
      { slug: "call_sentiment", displayName: "Call sentiment", description: "System default.", type: "STRING", systemDefault: true },
    ],
    outcomes: [
      { name: "Meeting booked", description: "A follow-up meeting was booked." },
      { name: "Interested", description: "Interested, no meeting yet." },
      { name: "Not interested", description: "Declined." },
      { name: "Wrong person", description: "Disabled outcome.", enabled: false },
      { name: "System: voicemail detected", description: "System outcome.", customerDefined: false },
    ],
    ...overrides,
  };
}

/** Creates the demo users or gives existing ones a new random password (which ends their sessions, as a password change does). */
export async function upsertDemoUsers(db: Db) {
  const result: Array<{ id: string; email: string; role: MemberRole; password: string }> = [];
  for (const user of DEMO_USERS) {
    const password = generateDemoPassword();
    const passwordHash = await bcrypt.hash(password, 10);
    const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
    let id = existing[0]?.id;
    if (id) {
      await db
        .update(users)
        .set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1` })
        .where(eq(users.id, id));
    } else {
      id = newId("user");
      await db.insert(users).values({ id, email: user.email, name: user.name, passwordHash });
    }
    result.push({ id, email: user.email, role: user.role, password });
  }
  return result;
}

/**
 * Creates a fresh demo dataset (new organizations each run, so it never collides with an earlier one) and
 * returns what the README and the tests need. Demo users are shared: they become members of every seeded org.
 */
export async function seedDemo(db: Db, options: SeedOptions): Promise<SeedResult> {
  const now = options.now ?? new Date();
  const demoUsers = await upsertDemoUsers(db);
  const stamp = DateTime.fromJSDate(now).toFormat("MMdd-HHmmss");

  const organizations: SeededOrganization[] = [];

  // primary
  const primary = await createOrganization(db, { name: `Acme Demo (${stamp})`, monthlyCreditAllocation: 50_000, titleCaseAllowlisted: true });
  const primaryKey = await createApiKey(db, { organizationId: primary.id, name: "Demo key" });
  const primaryAgents: SeededAgent[] = [];
  // The organizations' own numbers (fictional 555-01xx numbers: the demo data is only dialed by the voice simulator).
  const primaryNumbers = await claimFictionalNumbers(db, { organizationId: primary.id, count: 2, now });
  const roles: Array<{ role: string; name: string; status?: "ACTIVE" | "PAUSED" | "ARCHIVED" }> = [
    { role: "link", name: "Link Booking Agent" },
    { role: "crm", name: "CRM Routing Agent" },
    { role: "concierge", name: "Concierge Agent" },
    { role: "paused", name: "Paused Agent", status: "PAUSED" },
    { role: "archived", name: "Archived Agent", status: "ARCHIVED" },
  ];
  for (const spec of roles) {
    const agent = await createAgent(db, { organizationId: primary.id, ...demoAgentConfig(spec.name, { status: spec.status ?? "ACTIVE", phoneNumbers: primaryNumbers }) });
    await softDeleteLegacyField(db, agent.id);
    primaryAgents.push({ agentId: agent.id, name: agent.name, status: agent.status, role: spec.role, requiredInputVariables: ["company_name"] });
  }
  for (const user of demoUsers) await db.insert(memberships).values({ organizationId: primary.id, userId: user.id, role: user.role });
  await seedCreditHistory(db, primary.id, primaryAgents.map((a) => a.agentId), now);
  // Calendar booking before the history, so that the history's digit-0 calls on booking agents book too.
  const agentsByRole = new Map(primaryAgents.map((agent) => [agent.role, agent.agentId]));
  await configureDemoBooking(db, { organizationId: primary.id, agentsByRole });
  await seedAgentTestCases(db, {
    organizationId: primary.id,
    agents: primaryAgents.map((agent) => ({ agentId: agent.agentId, timezone: "America/New_York", hasCalendar: ["link", "crm", "concierge"].includes(agent.role) })),
    now,
  });
  // 30 days of calls produced by the call engine itself (simulator, analyser, lifecycle, charging).
  const callHistory = await seedCallHistory(db, { organizationId: primary.id, agentIds: primaryAgents.map((a) => a.agentId), now });
  const meetings = await seedMeetingFixtures(db, { organizationId: primary.id, agentId: agentsByRole.get("link")!, now });
  // Enrollments in several states: scheduled for tomorrow, a chain with waiting contacts, a bulk batch, cancelled, paused agent, opted out.
  const enrollments = await seedEnrollments(db, { organizationId: primary.id, agentId: agentsByRole.get("link")!, pausedAgentId: agentsByRole.get("paused"), now });
  // An agent that also emails and texts (after the history, which drives calls only): link booking, so its emails carry the meeting.
  const followUp = await createAgent(db, { organizationId: primary.id, ...demoAgentConfig("Follow-up Agent", { steps: DEMO_FOLLOW_UP_STEPS, replyEndsSequence: true, phoneNumbers: primaryNumbers }) });
  await softDeleteLegacyField(db, followUp.id);
  const followUpBooking = await validateBookingConfig(db, { organizationId: primary.id, bookingConfig: simulatorBookingConfig("link") });
  await db.update(agents).set({ bookingConfig: followUpBooking }).where(eq(agents.id, followUp.id));
  await seedAgentTestCases(db, { organizationId: primary.id, agents: [{ agentId: followUp.id, timezone: "America/New_York", hasCalendar: true }], now });
  primaryAgents.push({ agentId: followUp.id, name: followUp.name, status: followUp.status, role: "follow-up", requiredInputVariables: ["company_name"] });
  const primaryWebhook = options.webhookUrl
    ? await createWebhookEndpoint(db, { organizationId: primary.id, url: options.webhookUrl, description: "Demo seed (--webhook-url)", now })
    : null;
  organizations.push({
    key: "primary",
    orgId: primary.orgId,
    name: primary.name,
    apiKey: primaryKey.key,
    webhookSecret: primaryWebhook?.secret ?? null,
    agents: primaryAgents,
    fixtures: { sequenceIds: callHistory.sequenceIds, manyCallsSequenceIds: callHistory.manyCallsSequenceIds, ...meetings, enrollments },
  });

  // secondary: isolation
  const secondary = await createOrganization(db, { name: `Globex Demo (${stamp})`, monthlyCreditAllocation: 5_000 });
  const secondaryKey = await createApiKey(db, { organizationId: secondary.id, name: "Demo key" });
  const secondaryNumbers = await claimFictionalNumbers(db, { organizationId: secondary.id, count: 2, now });
  const secondaryAgent = await createAgent(db, { organizationId: secondary.id, ...demoAgentConfig("Globex Agent", { phoneNumbers: secondaryNumbers }) });
  await softDeleteLegacyField(db, secondaryAgent.id);
  await db.insert(memberships).values({ organizationId: secondary.id, userId: demoUsers[0]!.id, role: "admin" });
  await seedAgentTestCases(db, { organizationId: secondary.id, agents: [{ agentId: secondaryAgent.id, timezone: "America/New_York", hasCalendar: false }], now });
  organizations.push({
    key: "secondary",
    orgId: secondary.orgId,
    name: secondary.name,
    apiKey: secondaryKey.key,
    webhookSecret: null,
    agents: [{ agentId: secondaryAgent.id, name: secondaryAgent.name, status: secondaryAgent.status, role: "link", requiredInputVariables: ["company_name"] }],
    fixtures: { sequenceIds: [], manyCallsSequenceIds: [] },
  });

  // large: paging
  const large = await createOrganization(db, { name: `Initech Demo (${stamp})`, monthlyCreditAllocation: 10_000 });
  const largeKey = await createApiKey(db, { organizationId: large.id, name: "Demo key" });
  const largeAgents: SeededAgent[] = [];
  const statuses = ["ACTIVE", "PAUSED", "ARCHIVED"] as const;
  for (let i = 0; i < 125; i++) {
    const agent = await createAgent(db, {
      organizationId: large.id,
      name: `Agent ${String(i + 1).padStart(3, "0")}`,
      status: statuses[i % 3],
      createdAt: new Date(now.getTime() - (125 - i) * 60_000),
      outcomes: [{ name: "Interested" }],
    });
    largeAgents.push({ agentId: agent.id, name: agent.name, status: agent.status, role: "bulk", requiredInputVariables: [] });
  }
  await seedAgentTestCases(db, { organizationId: large.id, agents: largeAgents.map((agent) => ({ agentId: agent.agentId, timezone: "America/New_York", hasCalendar: false })), now });
  organizations.push({
    key: "large",
    orgId: large.orgId,
    name: large.name,
    apiKey: largeKey.key,
    webhookSecret: null,
    agents: largeAgents,
    fixtures: { sequenceIds: [], manyCallsSequenceIds: [] },
  });

  // Everything seeded is demo data: its scheduled calls are only ever placed by the voice simulator (dial gate).
  await db
    .update(sequences)
    .set({ demo: true })
    .where(inArray(sequences.organizationId, [primary.id, secondary.id, large.id]));

  const dashboardUrl = options.baseUrl.replace(/\/api\/v1$/, "");
  return {
    baseUrl: options.baseUrl,
    dashboard: { url: dashboardUrl, users: demoUsers.map(({ email, password, role }) => ({ email, password, role })) },
    organizations,
  };
}

async function softDeleteLegacyField(db: Db, agentId: string) {
  await db
    .update(inputVariableDefinitions)
    .set({ deletedAt: new Date() })
    .where(and(eq(inputVariableDefinitions.agentId, agentId), eq(inputVariableDefinitions.slug, "legacy_field")));
}

/**
 * Ledger rows for the three months before the engine-produced history (which covers the last 30 days with real
 * calls and their charges), with a month override on the previous month.
 */
async function seedCreditHistory(db: Db, organizationId: string, agentIds: string[], now: Date) {
  const rows: Array<typeof creditTransactions.$inferInsert> = [];
  const start = DateTime.fromJSDate(now, { zone: "utc" }).startOf("month").minus({ months: 3 });
  let day = start;
  let i = 0;
  while (day.toMillis() < now.getTime()) {
    for (const [index, agentId] of agentIds.slice(0, 3).entries()) {
      const at = day.plus({ hours: 9 + index * 2, minutes: (i * 7) % 60 });
      if (at.toMillis() >= now.getTime() - 31 * 86_400_000) continue;
      rows.push({ id: newId("txn"), organizationId, agentId, callId: null, credits: 1 + ((i + index) % 4), description: "Demo call", createdAt: at.toJSDate() });
    }
    day = day.plus({ days: 1 });
    i++;
  }
  for (let offset = 0; offset < rows.length; offset += 500) await db.insert(creditTransactions).values(rows.slice(offset, offset + 500));
  const previousMonth = DateTime.fromJSDate(now, { zone: "utc" }).minus({ months: 1 }).toFormat("yyyy-MM");
  await db.insert(creditAllocations).values({ organizationId, month: previousMonth, credits: 40_000 });
}
