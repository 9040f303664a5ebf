/**
 * Process-wide state, declared in one place (../shared/STYLE.md): the built app runs its server code in more than one
 * module graph (the custom server's under tsx, and Next.js's bundles: instrumentation and each route), so a module-level
 * `let` would exist once per graph. `processSingleton(key, create)` keeps one value per key for the whole process,
 * made on first use; the keys are one typed list, so a new singleton is named here. This file is the only one that
 * touches `globalThis` (eslint.config.mjs forbids it elsewhere).
 *
 * A value that is replaced or forgotten later (a test's engine, a simulator stopped and started again) lives in a
 * small mutable holder made once, e.g. `processSingleton("voiceEngine", () => ({ engine: undefined as VoiceEngine |
 * undefined }))`: the holder is the singleton, its field the current value. So each key is made once per process,
 * and `processSingletonCreations()` (on /metrics as `app_process_singleton_creations`) can show it.
 */
export const PROCESS_SINGLETON_KEYS = [
  // server/observability/
  "stageCpu", // stage-cpu.ts: CPU time by stage
  "metrics", // metrics.ts: the prom-client registry and its series
  "logger", // logger.ts: the root logger, its stream and children, the request context
  // server/config/
  "appConfig", // env.ts: the validated configuration (settable: reloadConfig, resetConfigForTests)
  // server/runtime/ and db/
  "lifecycle", // lifecycle.ts: shutting down?, Inngest registered?, the shutdown hooks
  "embeddedServices", // start-embedded-services.ts: the start of the in-process services
  "readinessSql", // readiness.ts: the /readyz database client
  "appDb", // db/index.ts: the app's connection pool
  "inngestEmbedded", // inngest/embedded/transport.ts: the runners, the token, checkpoints in flight
  // server/http/, server/auth/, server/services/
  "identityRateLimitStore", // http/rate-limit.ts: per API key / signed-in person
  "clientAddressRateLimitStore", // http/rate-limit.ts: per client address
  "authLimiters", // auth/limiters.ts: sign-in and invitation counters
  "apiKeyVerification", // services/api-keys/verify-api-key.ts: the verified-key cache and its re-check
  "invitationMailer", // services/members/deliver-invitation.ts: the SMTP transporter of invitations
  "sequenceMailer", // services/messaging/email-transport.ts: the email transport of sequences
  "smsSimulator", // services/messaging/twilio-messaging.ts: the embedded Twilio SMS simulator
  "telnyxSimulator", // carriers/telnyx/telnyx-account.ts: the embedded Telnyx simulator (SMS, numbers)
  "agentTestModels", // services/agent-tests/models.ts: where agent tests talk to models
  // server/voice/, server/analysis/, server/simulators/
  "voiceEngine", // voice/index.ts: the voice engine (settable)
  "listenHub", // voice/listen/index.ts: LISTEN/NOTIFY hub of live calls (settable)
  "testCallServer", // voice/test-call/test-call-server.ts: the browser test-call socket server
  "voiceEventsSecret", // voice/signature.ts: the secret voice events are signed with
  "trustedRecordingOrigins", // voice/recording-origins.ts: recording hosts the entry point may fetch from
  "callAnalyzer", // analysis/index.ts: the call analyser (settable)
  "openAiSimulator", // simulators/openai-realtime/embedded.ts: the embedded OpenAI simulator
  "chiliPiperSimulator", // simulators/chili-piper/embedded.ts: the embedded calendar simulator
  "chiliPiperSimulatorEndpoint", // simulators/chili-piper/endpoint-file.ts: the calendar simulator in use
] as const;
export type ProcessSingletonKey = (typeof PROCESS_SINGLETON_KEYS)[number];

type Registry = { values: Map<ProcessSingletonKey, unknown>; created: Map<ProcessSingletonKey, number> };

const REGISTRY = Symbol.for("outbound-calling.process-singletons");

function registry(): Registry {
  const holder = globalThis as Record<symbol, Registry | undefined>;
  holder[REGISTRY] ??= { values: new Map(), created: new Map() };
  return holder[REGISTRY];
}

/** The process's one value for `key`, made by `create` the first time any module copy asks. */
export function processSingleton<T>(key: ProcessSingletonKey, create: () => T): T {
  const { values, created } = registry();
  if (!values.has(key)) {
    values.set(key, create());
    created.set(key, (created.get(key) ?? 0) + 1);
  }
  return values.get(key) as T;
}

/** How many times each singleton was made in this process (tests: once each). */
export function processSingletonCreations(): ReadonlyMap<ProcessSingletonKey, number> {
  return registry().created;
}
