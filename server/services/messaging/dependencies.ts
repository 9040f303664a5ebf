import { getDb, type Db } from "@/db";
import { getEmailTransport } from "./email-transport";
import type { MessageTransports } from "./send-sequence-message";
import { getMessaging } from "./twilio-messaging";

/** What the message functions run on; tests inject their database, clock, SMTP server and Twilio simulator. */
export type MessageEngineDependencies = {
  getDb: () => Db;
  now: () => Date;
  transports: MessageTransports;
  /** Organizations the sweep looks at; undefined (production) means all (tests share one database). */
  organizationIds?: () => string[] | undefined;
  /** The sweep's period in minutes (default 1). */
  sweepPeriodMinutes?: number;
  /** Largest `sequence/started` batch (tests: 1, so each event runs at once on their clock). */
  eventBatchSize?: number;
};

export const defaultMessageEngineDependencies: MessageEngineDependencies = {
  getDb,
  now: () => new Date(),
  transports: { email: getEmailTransport, sms: getMessaging },
};
