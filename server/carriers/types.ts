/**
 * What a carrier (a voice engine: the simulator, Twilio + OpenAI Realtime, later Telnyx) declares about itself, so
 * that callers ask the registry (./registry.ts) what it can do instead of which one it is (issue 36: no
 * `kind === "…"` outside server/carriers/, enforced by eslint.config.mjs). Light on purpose: the registry is imported
 * by services (inbound calls, the dial gate), so nothing here imports an engine; engines are made in ./engines.ts.
 */
export type CarrierEnv = Readonly<Record<string, string | undefined>>;

/** The configuration a carrier's summary reads (a structural slice of the app's config: no import of it here). */
export type CarrierSummaryConfig = { REALTIME_MODEL: string; PUBLIC_BASE_URL?: string | null };

export type Carrier = {
  /** Its `VOICE_ENGINE` value and the `kind` of the engines it makes. */
  name: string;
  /**
   * Its segment in its URL family, `/api/carriers/<urlSegment>/…` and `/ws/carriers/<urlSegment>` (docs/carriers.md
   * "URLs"); null when the provider calls nothing of ours (the simulator).
   */
  urlSegment: string | null;
  /** No real phone rings: demo data may be dialled through it (the dial gate's `demo-data` check). */
  dialsDemoData: boolean;
  /** The console can play a contact calling back (`simulateCallback`, the sequence view's button). */
  simulatesCallbacks: boolean;
  /** Someone who calls our number is a person, answered at once (the inbound call's `answeredBy: human`, no AMD). */
  answersInboundAsHuman: boolean;
  /** A known caller reaching a number that takes messages leaves one, recorded on their sequence (the carrier records it). */
  takesInboundMessages: boolean;
  /** Supervisors listening in hear the call's real audio (else the listen socket plays a simulated source). */
  streamsRealAudio: boolean;
  /** Its events come from this server's own simulator, posted to the loopback events URL (the start-up log says where). */
  postsEventsToLoopback: boolean;
  /** Checks its settings in `env` without starting anything; throws VoiceSettingsError (or Error) with what is missing. */
  readSettings(env: CarrierEnv): void;
  /** Non-secret facts for the Integrations page, as label/value pairs: no tokens, keys or SIDs. */
  facts(config: CarrierSummaryConfig): Array<{ label: string; value: string }>;
};
