import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import type { Db } from "@/db";
import { sequenceMessages, type AgentStep } from "@/db/schema";
import { createScheduleSequenceMessagesFunction, createSweepSequenceMessagesFunction } from "@/inngest/functions/schedule-sequence-messages";
import { createSendSequenceMessageFunction } from "@/inngest/functions/send-sequence-message";
import { inngest } from "@/inngest/client";
import type { MessageEngineDependencies } from "@/server/services/messaging/dependencies";
import { createSmtpTransport } from "@/server/services/messaging/email-transport";
import type { SmsOptOutHandling } from "@/server/services/messaging/sms-keywords";
import { handleTwilioMessagingWebhook } from "@/server/services/messaging/twilio-webhooks";
import { createTwilioSmsTransport, type Messaging, type TwilioMessagingSettings } from "@/server/services/messaging/twilio-messaging";
import { startTwilioSimulator, type TwilioSimulator } from "@/server/simulators/twilio";
import type { TestClock } from "@/tests/helpers/inngest";

/** The public origin Twilio is told about (callbacks are signed over it); the test's webhook server stands behind it. */
export const PUBLIC_BASE_URL = "https://app.example.test";

export type ReceivedMail = { from: string; to: string[]; raw: string };

/**
 * A real SMTP server in process (`smtp-server`) that keeps what it receives; `refuse` makes it answer 421 (an outage);
 * addresses in `unknownMailboxes` are refused at RCPT TO with 550 5.1.1, as a receiving server refuses a mailbox that
 * does not exist (a bounce known at send time).
 */
export async function startTestSmtpServer() {
  const received: ReceivedMail[] = [];
  const state = { refuse: false, unknownMailboxes: new Set<string>() };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onConnect(_session, callback) {
      if (state.refuse) return callback(Object.assign(new Error("Service not available, try again later"), { responseCode: 421 }));
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (state.unknownMailboxes.has(address.address.toLowerCase())) return callback(Object.assign(new Error("5.1.1 The email account that you tried to reach does not exist"), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    state,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header of a raw message, unfolded. */
export function headerOf(raw: string, name: string): string | null {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : null;
}

/** The text/plain part of a raw message, quoted-printable decoded. */
export function textPartOf(raw: string): string {
  const match = /Content-Type: text\/plain[^\n]*\r?\n(?:Content-Transfer-Encoding: ([^\r\n]+)\r?\n)?\r?\n([\s\S]*?)\r?\n--/i.exec(raw);
  const body = match?.[2] ?? "";
  if (match?.[1]?.toLowerCase() !== "quoted-printable") return body;
  return Buffer.from(
    body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");
}

/**
 * The Twilio simulator with its webhooks delivered to the app's messaging webhook handler behind a loopback HTTP
 * server (as Twilio would reach PUBLIC_BASE_URL), so callbacks go over real HTTP, signed.
 */
export async function startTwilioForMessages(db: Db, clock: TestClock, options: { optOutHandling?: SmsOptOutHandling } = {}): Promise<{ simulator: TwilioSimulator; messaging: Messaging; server: Server; stop: () => Promise<void> }> {
  const holder: { messaging?: Messaging } = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = new Request(`${PUBLIC_BASE_URL}${req.url}`, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([key, value]) => (typeof value === "string" ? [[key, value] as [string, string]] : [])),
        body: Buffer.concat(chunks),
      });
      void handleTwilioMessagingWebhook(request, { db, now: clock.now, messaging: async () => holder.messaging! })
        .then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch((error: unknown) => {
          res.writeHead(500).end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const simulator = await startTwilioSimulator({ resolvePublicUrl: (url) => url.replace(PUBLIC_BASE_URL, local) });
  const settings: TwilioMessagingSettings = {
    kind: "simulator",
    accountSid: simulator.accountSid,
    authToken: simulator.authToken,
    restUsername: simulator.accountSid,
    restPassword: simulator.authToken,
    apiBaseUrl: simulator.origin,
    publicBaseUrl: PUBLIC_BASE_URL,
    optOutHandling: options.optOutHandling ?? "twilio-default",
  };
  holder.messaging = { settings, transport: createTwilioSmsTransport(settings), simulator };
  return {
    simulator,
    messaging: holder.messaging,
    server,
    stop: async () => {
      await simulator.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The message functions on the call engine's runner, with the test's clock, SMTP server and Twilio simulator. */
export function messageFunctions(params: { db: Db; smtpUrl: string; messaging: () => Messaging }) {
  return ({ clock, organizationIds }: { clock: TestClock; organizationIds: () => string[] }) => {
    const deps: MessageEngineDependencies = {
      getDb: () => params.db,
      now: clock.now,
      transports: { email: () => createSmtpTransport(params.smtpUrl), sms: async () => params.messaging() },
      organizationIds,
      eventBatchSize: 1,
      sweepPeriodMinutes: 1440,
    };
    return [createScheduleSequenceMessagesFunction(inngest, deps), createSendSequenceMessageFunction(inngest, deps), createSweepSequenceMessagesFunction(inngest, deps)];
  };
}

export function messageStep(stepType: "EMAIL" | "SMS", template: { subject?: string; body: string }, overrides: Partial<AgentStep> = {}): AgentStep {
  return {
    stepType,
    subject: template.subject ?? null,
    body: template.body,
    delaySeconds: 0,
    delaySecondsMax: null,
    executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" },
    ...overrides,
  };
}

export async function messagesOf(db: Db, sequenceId: string) {
  return db.select().from(sequenceMessages).where(eq(sequenceMessages.sequenceId, sequenceId)).orderBy(sequenceMessages.createdAt, sequenceMessages.stepNumber);
}
