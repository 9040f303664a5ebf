import { and, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "@/db";
import { agents, creditTransactions, emailSuppressions, optOuts, organizations, sequenceMessages, sequences, type AgentStep, type MessageChannel, type NumberCarrier } from "@/db/schema";
import { findNumberCarrier, findSmsSenders } from "@/db/queries/numbers";
import { getConfig } from "@/server/config/env";
import { mailSettings } from "@/server/config/settings";
import { newId, newUlid } from "@/server/ids";
import { getLogger } from "@/server/observability/logger";
import { maskPhoneNumber } from "@/server/observability/redact";
import { pickFromPhoneNumber, agentTimezoneOf } from "@/server/services/call-engine/call-context";
import { pausedRecheckSeconds } from "@/server/services/call-engine/dial-gate";
import { nextAllowedTime } from "@/server/services/compliance/quiet-hours";
import { recordMessageEvent, type MessageEventType } from "@/server/services/events/record-message-event";
import { firstInstantInWindow, stepTimezone } from "@/server/services/scheduling/compute-step-due-at";
import { emailTextFooter, countSmsSegments, MAX_SMS_SEGMENTS, renderEmailHtml, renderTemplate } from "@/server/services/sequences/message-template";
import { scheduleNextStep, type NextStep } from "@/server/services/sequences/message-steps";
import { RETRY_SCHEDULE_MS } from "@/server/services/webhooks/retry-schedule";
import { EmailSendError, type EmailTransport, type OutgoingEmail } from "./email-transport";
import { buildTemplateValues } from "./message-context";
import { getTelnyxSms } from "@/server/carriers/telnyx/telnyx-sms";
import { SmsSendError, TWILIO_MESSAGE_STATUS_PATH, type Messaging, type SmsTransport } from "./twilio-messaging";
import { unsubscribeUrl } from "./unsubscribe-token";

type MessageRow = typeof sequenceMessages.$inferSelect;
type SequenceRow = typeof sequences.$inferSelect;
type AgentRow = typeof agents.$inferSelect;

/** Attempts of one message before it fails for good: the first, then one per webhook retry delay (DESIGN §6). */
export const MAX_MESSAGE_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** SMS through one carrier: its transport, and the URL its delivery reports come to (`?messageId=` added). */
export type SmsCarrierTransport = { transport: SmsTransport; statusUrl: string };

export type MessageTransports = {
  email: () => EmailTransport;
  /** Twilio's (or its simulator's): the numbers whose carrier is `twilio`. */
  sms: () => Promise<Messaging>;
  /** Telnyx's (or its simulator's): the numbers whose carrier is `telnyx`; default the process's Telnyx account. */
  telnyxSms?: () => Promise<SmsCarrierTransport>;
};

/** Which carrier sends a number's SMS: its own (`numbers.carrier`; the simulator's fictional numbers go through Twilio's). */
const SMS_BY_CARRIER: Record<NumberCarrier, { transport: "twilio" | "telnyx"; open: (transports: MessageTransports) => Promise<SmsCarrierTransport> }> = {
  twilio: { transport: "twilio", open: twilioSms },
  simulator: { transport: "twilio", open: twilioSms },
  telnyx: { transport: "telnyx", open: (transports) => (transports.telnyxSms ?? getTelnyxSms)() },
};

async function twilioSms(transports: MessageTransports): Promise<SmsCarrierTransport> {
  const messaging = await transports.sms();
  return { transport: messaging.transport, statusUrl: `${messaging.settings.publicBaseUrl}${TWILIO_MESSAGE_STATUS_PATH}` };
}

export type SendSequenceMessageOutcome =
  /** Nothing to do now: not due yet (`nextAttemptAt`), or already handled (null). */
  | { status: "idle"; messageId: string; nextAttemptAt: string | null }
  | { status: "sent" | "skipped" | "failed"; messageId: string; next: NextStep | null }
  /** Failed, tried again at `nextAttemptAt`. */
  | { status: "retrying"; messageId: string; nextAttemptAt: string; error: string };

type Prepared =
  | { kind: "done"; outcome: SendSequenceMessageOutcome; event?: MessageEventType }
  /** Claimed (`sending`) and rendered; `send` hands it to its channel's transport, outside any transaction. */
  | { kind: "send"; message: MessageRow; send: (transports: MessageTransports) => Promise<SendResult> };

const QUIET_HOURS_FALLBACK_MS = 86_400_000;

type SendResult =
  | { ok: true; providerMessageId: string | null; segments: number | null; transport: "smtp" | "outbox" | "twilio" | "telnyx" }
  | { ok: false; error: string; code: string | null; permanent: boolean };

/**
 * Sends one EMAIL or SMS step when it is due (docs/sequences.md "How a message is sent"), at most once:
 *
 * 1. In one transaction (sequence, then message, locked): the checks — still due, sequence in progress, agent active,
 *    inside the step's window and, for SMS, the contact's quiet hours (else moved, like a call), address or number
 *    not suppressed (else `skipped`, recorded, and the sequence moves on) — then the message is rendered and marked
 *    `sending` with its attempt counted. Committed before anything leaves.
 * 2. The transport: SMTP (or the outbox) for email, Twilio for SMS, outside any transaction.
 * 3. In one transaction: `sent` (credits charged, once: the ledger's unique message ID) and the sequence's next step
 *    planned (or `done`); or `failed` with the reason — tried again after the webhook retry delays while the failure
 *    may pass (SMTP 4xx, no connection, Twilio 5xx), final at once when it cannot (SMTP 5xx, Twilio 4xx) or after
 *    MAX_MESSAGE_ATTEMPTS, and a final failure moves the sequence on like a failed call.
 *
 * A message only leaves from `sending`, and only the sender that claimed it writes its result: a retry is a new claim
 * of a `failed` message whose send was refused, so nothing is sent twice. A sender that dies between 1 and 3 leaves
 * the message `sending`; the sweep fails it as interrupted (never re-sent: it may have left).
 */
export async function sendSequenceMessage(db: Db, params: { messageId: string; now: Date; transports: MessageTransports; random?: () => number }): Promise<SendSequenceMessageOutcome> {
  const { messageId, now } = params;
  const prepared = await db.transaction((tx) => prepare(tx, params));
  if (prepared.kind === "done") {
    await announce(db, prepared.outcome, prepared.event, now);
    return prepared.outcome;
  }
  let result: SendResult;
  try {
    result = await prepared.send(params.transports);
  } catch (error) {
    const known = error instanceof EmailSendError || error instanceof SmsSendError;
    result = {
      ok: false,
      error: (error instanceof Error ? error.message : String(error)).slice(0, 500),
      code: known ? error.code : null,
      permanent: known ? error.permanent : false,
    };
  }
  const finalResult = result;
  const outcome = await db.transaction((tx) => recordResult(tx, { message: prepared.message, result: finalResult, now, random: params.random }));
  const log = getLogger("sequence-messages");
  if (outcome.status === "sent") log.info({ messageId, channel: prepared.message.channel, sequenceId: prepared.message.sequenceId }, "message sent");
  else log.warn({ messageId, channel: prepared.message.channel, sequenceId: prepared.message.sequenceId, status: outcome.status, error: finalResult.ok ? null : finalResult.error }, "message not sent");
  const channel = prepared.message.channel;
  await announce(db, outcome, outcome.status === "sent" ? `${channel}.sent` : outcome.status === "failed" ? `${channel}.failed` : undefined, now);
  if (outcome.status === "sent") await announceRacedDelivery(db, outcome.messageId, now);
  return outcome;
}

async function announce(db: Db, outcome: SendSequenceMessageOutcome, event: MessageEventType | undefined, now: Date) {
  if (!event) return;
  const [message] = await db.select().from(sequenceMessages).where(eq(sequenceMessages.id, outcome.messageId)).limit(1);
  if (message) await recordMessageEvent(db, { type: event, message, now });
}

/** The delivery event of an SMS whose status callback came before the send was recorded (it recorded no event then). */
async function announceRacedDelivery(db: Db, messageId: string, now: Date) {
  const [message] = await db.select().from(sequenceMessages).where(eq(sequenceMessages.id, messageId)).limit(1);
  if (!message || message.channel !== "sms") return;
  if (message.status === "delivered") await recordMessageEvent(db, { type: "sms.delivered", message, now });
  else if (message.status === "undelivered" || message.status === "failed") await recordMessageEvent(db, { type: "sms.failed", message, now });
}

async function prepare(tx: Tx, params: { messageId: string; now: Date; random?: () => number }): Promise<Prepared> {
  const { messageId, now } = params;
  const idle = (nextAttemptAt: Date | null): Prepared => ({ kind: "done", outcome: { status: "idle", messageId, nextAttemptAt: nextAttemptAt?.toISOString() ?? null } });
  const [located] = await tx.select({ sequenceId: sequenceMessages.sequenceId }).from(sequenceMessages).where(eq(sequenceMessages.id, messageId)).limit(1);
  if (!located?.sequenceId) return idle(null);
  const [sequence] = await tx.select().from(sequences).where(eq(sequences.id, located.sequenceId)).for("update");
  const [message] = await tx.select().from(sequenceMessages).where(eq(sequenceMessages.id, messageId)).for("update");
  if (!sequence || !message || message.direction !== "outbound" || message.stepNumber === null) return idle(null);
  if (!(message.status === "scheduled" || message.status === "failed") || !message.nextAttemptAt) return idle(null);
  if (message.nextAttemptAt.getTime() > now.getTime()) return idle(message.nextAttemptAt);

  const defer = async (until: Date) => {
    await tx.update(sequenceMessages).set({ nextAttemptAt: until, updatedAt: now }).where(eq(sequenceMessages.id, messageId));
    return idle(until);
  };
  const skip = async (reason: string, options: { advance: boolean }): Promise<Prepared> => {
    await tx.update(sequenceMessages).set({ status: "skipped", error: reason, nextAttemptAt: null, updatedAt: now }).where(eq(sequenceMessages.id, messageId));
    const next = options.advance ? await scheduleNextStep(tx, { sequence, afterStepNumber: message.stepNumber!, endedAt: now, now, random: params.random }) : null;
    return { kind: "done", outcome: { status: "skipped", messageId, next }, event: `${message.channel}.skipped` };
  };

  if (sequence.lifecycleStatus !== "in progress") return skip(`Skipped: the sequence is ${sequence.lifecycleStatus}.`, { advance: false });
  const [agent] = await tx.select().from(agents).where(eq(agents.id, sequence.agentId)).limit(1);
  if (!agent) return skip("Skipped: the agent no longer exists.", { advance: false });
  if (agent.status !== "ACTIVE") return defer(new Date(now.getTime() + pausedRecheckSeconds() * 1000));
  const step = sequence.steps[message.stepNumber - 1];
  if (!step) return skip("Skipped: the step no longer exists.", { advance: true });
  if (!sequence.bypassCallWindows) {
    const zone = stepTimezone(step, sequence.timezone, agentTimezoneOf(agent, sequence.timezone));
    const opens = firstInstantInWindow(now.getTime(), step.executionWindowConfig.timeWindow, zone);
    if (opens > now.getTime()) return defer(new Date(opens));
  }

  return PREPARE_BY_CHANNEL[message.channel](tx, { message, sequence, agent, step, now, skip, defer });
}

type PrepareContext = {
  message: MessageRow;
  sequence: SequenceRow;
  agent: AgentRow;
  step: AgentStep;
  now: Date;
  skip: (reason: string, options: { advance: boolean }) => Promise<Prepared>;
  defer: (until: Date) => Promise<Prepared>;
};

/** Each channel's own checks, rendering and claim, after the checks every message shares (in `prepare`'s transaction). */
const PREPARE_BY_CHANNEL: Record<MessageChannel, (tx: Tx, context: PrepareContext) => Promise<Prepared>> = {
  email: prepareEmailStep,
  sms: prepareSmsStep,
};

async function prepareEmailStep(tx: Tx, { message, sequence, agent, step, now, skip }: PrepareContext): Promise<Prepared> {
  const to = sequence.toEmailAddress?.trim() ?? "";
  if (!to) return skip("Skipped: the contact has no email address.", { advance: true });
  const [suppressed] = await tx
    .select({ email: emailSuppressions.email })
    .from(emailSuppressions)
    .where(and(eq(emailSuppressions.organizationId, sequence.organizationId), eq(emailSuppressions.email, to.toLowerCase())))
    .limit(1);
  if (suppressed) return skip("Skipped: the address unsubscribed from this organization's emails.", { advance: true });
  return prepareEmail(tx, { message, sequence, agentName: agent.name, step: { subject: step.subject ?? "", body: step.body ?? "" }, to, now });
}

async function prepareSmsStep(tx: Tx, { message, sequence, agent, step, now, skip, defer }: PrepareContext): Promise<Prepared> {
  const [optedOut] = await tx
    .select({ phoneNumber: optOuts.phoneNumber })
    .from(optOuts)
    .where(and(eq(optOuts.organizationId, sequence.organizationId), eq(optOuts.phoneNumber, sequence.phoneNumber)))
    .limit(1);
  if (optedOut) return skip("Skipped: the number is on the organization's suppression list.", { advance: true });
  if (getConfig().COMPLIANCE_QUIET_HOURS) {
    const allowedAt = nextAllowedTime(now, { phoneNumber: sequence.phoneNumber, timezone: sequence.timezone });
    if (!allowedAt || allowedAt.getTime() > now.getTime()) return defer(allowedAt ?? new Date(now.getTime() + QUIET_HOURS_FALLBACK_MS));
  }
  // Only the organization's own SMS-capable numbers of the pool send (docs/numbers.md).
  const senders = await findSmsSenders(tx, { organizationId: sequence.organizationId, phoneNumbers: agent.phoneNumbers });
  const from = pickFromPhoneNumber(senders, sequence.phoneNumber);
  if (!from) return skip("Skipped: the agent's pool has none of the organization's numbers that can send SMS.", { advance: true });
  const carrier = SMS_BY_CARRIER[(await findNumberCarrier(tx, { organizationId: sequence.organizationId, phoneNumber: from })) ?? "twilio"];
  const values = await buildTemplateValues(tx, { sequence, agentName: agent.name });
  const body = fitSmsSegments(renderTemplate(step.body ?? "", values).trim());
  const segments = countSmsSegments(body).segments;
  const [claimed] = await tx
    .update(sequenceMessages)
    .set({ status: "sending", attempts: sql`${sequenceMessages.attempts} + 1`, nextAttemptAt: null, toAddress: sequence.phoneNumber, fromAddress: from, body, segments, transport: carrier.transport, updatedAt: now })
    .where(eq(sequenceMessages.id, message.id))
    .returning();
  const to = sequence.phoneNumber;
  return {
    kind: "send",
    message: claimed!,
    send: async (transports) => {
      const sms = await carrier.open(transports);
      const statusCallback = `${sms.statusUrl}?messageId=${encodeURIComponent(message.id)}`;
      const sent = await sms.transport.send({ to, from, body, statusCallback });
      return { ok: true, providerMessageId: sent.sid, segments: sent.segments, transport: carrier.transport };
    },
  };
}

/** A rendered SMS longer than MAX_SMS_SEGMENTS (long variable values) is cut to fit, ending with "…". */
function fitSmsSegments(body: string): string {
  if (countSmsSegments(body).segments <= MAX_SMS_SEGMENTS) return body;
  let chars = [...body];
  while (chars.length > 0 && countSmsSegments(chars.join("") + "…").segments > MAX_SMS_SEGMENTS) chars = chars.slice(0, -1);
  return chars.join("").trimEnd() + "…";
}

function domainOf(address: string): string {
  return /@([^>\s]+)>?\s*$/.exec(address)?.[1] ?? "localhost";
}

async function prepareEmail(
  tx: Tx,
  params: { message: MessageRow; sequence: SequenceRow; agentName: string; step: { subject: string; body: string }; to: string; now: Date },
): Promise<Prepared> {
  const { message, sequence, now } = params;
  const [organization] = await tx
    .select({ name: organizations.name, emailFrom: organizations.emailFrom, emailReplyTo: organizations.emailReplyTo })
    .from(organizations)
    .where(eq(organizations.id, sequence.organizationId))
    .limit(1);
  const from = organization?.emailFrom ?? mailSettings()?.from ?? `${organization?.name ?? "Outbound"} <no-reply@localhost>`;
  const values = await buildTemplateValues(tx, { sequence, agentName: params.agentName });
  const subject = renderTemplate(params.step.subject, values).replace(/[\r\n]+/g, " ").trim();
  const text = renderTemplate(params.step.body, values).trim();
  const unsubscribe = unsubscribeUrl(message.id);
  // The same Message-ID on every attempt (a retry after a refused send is the same email).
  const messageIdHeader = message.providerMessageId ?? `<${newUlid().toLowerCase()}.${message.id.replace(/^message\./, "")}@${domainOf(from)}>`;
  const email: OutgoingEmail = {
    from,
    replyTo: organization?.emailReplyTo ?? null,
    to: params.to,
    subject,
    text: text + emailTextFooter(unsubscribe),
    html: renderEmailHtml(text, { unsubscribeUrl: unsubscribe }),
    messageId: messageIdHeader,
    // RFC 8058 one-click unsubscribe: the URL in List-Unsubscribe, and the POST body a mail client sends to it.
    headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
  const [claimed] = await tx
    .update(sequenceMessages)
    .set({
      status: "sending",
      attempts: sql`${sequenceMessages.attempts} + 1`,
      nextAttemptAt: null,
      toAddress: params.to,
      fromAddress: from,
      subject,
      body: text,
      html: email.html,
      providerMessageId: messageIdHeader,
      transport: null,
      updatedAt: now,
    })
    .where(eq(sequenceMessages.id, message.id))
    .returning();
  return {
    kind: "send",
    message: claimed!,
    send: async (transports) => {
      const transport = transports.email();
      await transport.send(email);
      return { ok: true, providerMessageId: null, segments: null, transport: transport.kind };
    },
  };
}

type ChannelAccounting = {
  /** The segments a sent message is billed for (the transport's count, else the one rendered); null where the channel has none. */
  sentSegments: (reported: number | null, rendered: number | null) => number | null;
  /** Credits of a sent message (docs/sequences.md "Costs"). */
  credits: (segments: number | null) => number;
  /** Its line in the credit ledger. */
  ledgerDescription: (messageId: string, segments: number | null) => string;
  /** Whether a final refusal with this code is a bounce (the address does not exist) rather than a failure. */
  isBounce: (code: string | null) => boolean;
};

const CHANNEL_ACCOUNTING: Record<MessageChannel, ChannelAccounting> = {
  email: {
    sentSegments: () => null,
    credits: () => getConfig().SEQUENCE_EMAIL_CREDITS,
    ledgerDescription: (messageId) => `Email ${messageId}`,
    // The receiving server refused the mailbox (SMTP 550–553 at send time): a bounce, known now. Bounces that arrive
    // later as delivery-status mail are not read (no inbound mailbox).
    isBounce: (code) => /^55[0-3]$/.test(code ?? ""),
  },
  sms: {
    sentSegments: (reported, rendered) => reported ?? rendered,
    credits: (segments) => getConfig().SEQUENCE_SMS_SEGMENT_CREDITS * Math.max(1, segments ?? 1),
    ledgerDescription: (messageId, segments) => `SMS ${messageId}: ${segments ?? 1} segment${(segments ?? 1) === 1 ? "" : "s"}`,
    isBounce: () => false,
  },
};

/** Credits of a sent message (docs/sequences.md "Costs"): per email, per SMS segment. */
export function creditsForMessage(channel: MessageChannel, segments: number | null): number {
  return CHANNEL_ACCOUNTING[channel].credits(segments);
}

async function recordResult(
  tx: Tx,
  params: {
    message: MessageRow;
    result: SendResult;
    now: Date;
    random?: () => number;
  },
): Promise<SendSequenceMessageOutcome> {
  const { message, result, now } = params;
  const [sequence] = await tx.select().from(sequences).where(eq(sequences.id, message.sequenceId!)).for("update");
  const [current] = await tx.select().from(sequenceMessages).where(eq(sequenceMessages.id, message.id)).for("update");
  if (!sequence || !current || current.status !== "sending") return { status: "idle", messageId: message.id, nextAttemptAt: null };
  const moveOn = () =>
    sequence.lifecycleStatus === "in progress" ? scheduleNextStep(tx, { sequence, afterStepNumber: message.stepNumber!, endedAt: now, now, random: params.random }) : Promise.resolve(null);

  if (result.ok) {
    const segments = CHANNEL_ACCOUNTING[message.channel].sentSegments(result.segments, message.segments);
    const credits = creditsForMessage(message.channel, segments);
    // A delivery callback that raced ahead of this write (providerStatus) decides the state.
    const reported = current.providerStatus === "delivered" || current.providerStatus === "undelivered" || current.providerStatus === "failed" ? current.providerStatus : null;
    await tx
      .update(sequenceMessages)
      .set({
        status: reported ?? "sent",
        sentAt: now,
        error: null,
        errorCode: null,
        segments,
        credits,
        transport: result.transport,
        ...(result.providerMessageId ? { providerMessageId: result.providerMessageId } : {}),
        updatedAt: now,
      })
      .where(eq(sequenceMessages.id, message.id));
    if (credits > 0) {
      await tx
        .insert(creditTransactions)
        .values({
          id: newId("txn"),
          organizationId: message.organizationId,
          agentId: message.agentId,
          messageId: message.id,
          credits,
          description: CHANNEL_ACCOUNTING[message.channel].ledgerDescription(message.id, segments),
          createdAt: now,
        })
        .onConflictDoNothing({ target: creditTransactions.messageId });
    }
    return { status: "sent", messageId: message.id, next: await moveOn() };
  }

  const final = result.permanent || current.attempts >= MAX_MESSAGE_ATTEMPTS;
  const retryInMs = RETRY_SCHEDULE_MS[Math.max(0, current.attempts - 1)] ?? RETRY_SCHEDULE_MS[RETRY_SCHEDULE_MS.length - 1]!;
  const nextAttemptAt = final ? null : new Date(now.getTime() + retryInMs);
  const bounced = final && CHANNEL_ACCOUNTING[message.channel].isBounce(result.code);
  await tx
    .update(sequenceMessages)
    .set({ status: bounced ? "bounced" : "failed", error: result.error, errorCode: result.code, nextAttemptAt, updatedAt: now })
    .where(eq(sequenceMessages.id, message.id));
  if (!final) return { status: "retrying", messageId: message.id, nextAttemptAt: nextAttemptAt!.toISOString(), error: result.error };
  if (message.channel === "sms") getLogger("sequence-messages").warn({ to: maskPhoneNumber(message.toAddress), code: result.code }, "SMS failed for good");
  return { status: "failed", messageId: message.id, next: await moveOn() };
}
