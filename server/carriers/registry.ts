import { simulatorCarrier } from "./simulator/carrier";
import { twilioRealtimeCarrier } from "./twilio-realtime/carrier";
import type { Carrier, CarrierEnv } from "./types";

/**
 * The carriers, keyed by name (`VOICE_ENGINE`, an engine's `kind`). Adding one is an entry here (its capabilities,
 * ./<name>/carrier.ts) and one in ./engines.ts (how its engine is made): callers ask what a carrier does, never which
 * one it is (eslint.config.mjs refuses comparisons with the names outside server/carriers/).
 */
const CARRIERS = {
  simulator: simulatorCarrier,
  "twilio-realtime": twilioRealtimeCarrier,
} as const satisfies Record<string, Carrier>;

export type CarrierName = keyof typeof CARRIERS;
/** The names, the default first. */
export const CARRIER_NAMES = Object.keys(CARRIERS) as [CarrierName, ...CarrierName[]];
export const DEFAULT_CARRIER: CarrierName = "simulator";

export function isCarrierName(name: string): name is CarrierName {
  return Object.hasOwn(CARRIERS, name);
}

/** The carrier of that name; an unknown name throws, saying which ones exist. */
export function voiceCarrier(name: string): Carrier {
  if (!isCarrierName(name)) throw new Error(`Voice carrier "${name}" is unknown; use one of ${CARRIER_NAMES.join(", ")}.`);
  return CARRIERS[name];
}

/** The carrier whose URL family is `/api/carriers/<segment>/…` (its `urlSegment`); null for any other segment. */
export function carrierByUrlSegment(segment: string): { name: CarrierName; carrier: Carrier } | null {
  for (const name of CARRIER_NAMES) if (CARRIERS[name].urlSegment !== null && CARRIERS[name].urlSegment === segment) return { name, carrier: CARRIERS[name] };
  return null;
}

/**
 * What an engine of this `kind` can do. An engine that is not a registered carrier's (a test's own double) can do
 * none of the carrier-specific things: no demo data, no simulated callbacks, no real audio.
 */
export function carrierOfEngine(kind: string): Carrier {
  return isCarrierName(kind) ? CARRIERS[kind] : UNREGISTERED;
}

/** `VOICE_ENGINE` (default `simulator`); throws on an unknown value. */
export function configuredCarrierName(env: CarrierEnv): CarrierName {
  const name = env.VOICE_ENGINE?.trim() || DEFAULT_CARRIER;
  if (!isCarrierName(name)) throw new Error(`VOICE_ENGINE=${name} is unknown; use one of ${CARRIER_NAMES.join(", ")}.`);
  return name;
}

const UNREGISTERED: Carrier = {
  name: "unregistered",
  urlSegment: null,
  dialsDemoData: false,
  simulatesCallbacks: false,
  answersInboundAsHuman: false,
  takesInboundMessages: false,
  streamsRealAudio: false,
  postsEventsToLoopback: false,
  readSettings: () => {},
  facts: () => [],
};

export type { Carrier } from "./types";
