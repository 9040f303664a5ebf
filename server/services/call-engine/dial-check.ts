import type { Tx } from "@/db";
import type { agents, calls, sequences } from "@/db/schema";

// The dial gate's shapes, apart from the gate (dial-gate.ts) so that its checks (compliance-checks.ts,
// caller-id-check.ts) depend on them and not on the gate that runs them.

/** A due call as the claim transaction locked it (call and sequence rows locked), with what the checks read. */
export type DialCandidate = {
  call: typeof calls.$inferSelect;
  sequence: typeof sequences.$inferSelect;
  agent: typeof agents.$inferSelect;
  /** The number is on the organization's opt-out list. */
  optedOut: boolean;
  /** The organization's own dial-rate limit (null: the global setting). */
  organizationDialRate: number | null;
  /** The organization's maximum concurrent calls (null: no organization limit). */
  organizationMaxConcurrentCalls: number | null;
  /** The caller ID `callerIdCheck` chose (an owned, callable number of the pool); unset until it ran. */
  fromPhoneNumber?: string;
};

/**
 * What a check decides for one candidate. Candidates a check returns nothing for go on to the next check; those that
 * pass every check are dialed.
 * - `cancel`: never dialed — the call becomes `Cancelled` (`endSequence`: the sequence too, e.g. an opt-out).
 * - `defer`: not now — the call stays `Scheduled`, moved to `until` (`rescheduledAt` records when).
 * - `wait`: not now, nothing changes — the dispatcher looks again on its next round (rate slots, concurrency caps:
 *   "dialing waits, never drops").
 */
export type GateVerdict =
  | { action: "cancel"; reason: "sequence-not-in-progress" | "opted-out" | (string & {}); summary?: string; endSequence?: boolean }
  | { action: "defer"; until: Date; reason: "not-due" | "outside-window" | "agent-paused" | (string & {}) }
  | { action: "wait"; reason: "rate-limit" | (string & {}); retryAt?: Date };

export type GateContext = {
  tx: Tx;
  now: Date;
  /** Whether the dial-rate limits apply (the dispatcher); the demo seeder dials past calls without pacing. */
  paced: boolean;
  /** The voice engine that would place the calls (`simulator`, `twilio-realtime`, …). */
  engine: string;
  /** Slots the rate check planned, by call ID. */
  slots: Map<string, Date>;
};

/**
 * One check of the dial gate: gets the candidates still in the running (in scheduled order) inside the claim
 * transaction — load what it needs for all of them in one query — and returns verdicts for those it stops.
 */
export type DialCheck = {
  name: string;
  run: (context: GateContext, candidates: DialCandidate[]) => Promise<Map<string, GateVerdict>> | Map<string, GateVerdict>;
};
