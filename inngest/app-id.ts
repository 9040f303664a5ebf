/**
 * The Inngest app's id. Function ids are stored and shown prefixed with it (`outbound-calling-run-agent-tests`). Its
 * own module so the console can read it without the SDK.
 */
export const INNGEST_APP_ID = "outbound-calling";
