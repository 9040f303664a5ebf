import js from "@eslint/js";
import inngest from "@inngest/eslint-plugin";
import drizzle from "eslint-plugin-drizzle";
import tseslint from "typescript-eslint";

/** The SDKs and the one folder of server/ each may be imported in. */
const PROVIDER_SDKS = [
  { folder: "server/voice/conversation", regex: "^@openai/agents(-[^/]+)?(/.*)?$", message: "Only server/voice/conversation/ talks to the Realtime SDK: run a conversation on a MediaLeg (media-leg.ts) instead." },
  { folder: "server/carriers/twilio", regex: "^twilio(/.*)?$", message: "Only server/carriers/twilio/ imports the twilio package: add what you need there (twiml.ts, twilio-client.ts, signature.ts)." },
  { folder: "server/carriers/telnyx", regex: "^telnyx(/.*)?$", message: "Only server/carriers/telnyx/ imports the telnyx package: add what you need there." },
];

function sdkImportRules() {
  const restrict = (sdks) => ({ "no-restricted-imports": ["error", { patterns: sdks.map(({ regex, message }) => ({ regex, message })) }] });
  return [
    { files: ["server/**"], ignores: PROVIDER_SDKS.map(({ folder }) => `${folder}/**`), rules: restrict(PROVIDER_SDKS) },
    ...PROVIDER_SDKS.map((own) => ({ files: [`${own.folder}/**`], rules: restrict(PROVIDER_SDKS.filter((sdk) => sdk !== own)) })),
  ];
}

export default tseslint.config(
  {
    ignores: ["node_modules/**", ".next/**", ".data/**", ".data-*/**", "test-results/**", "playwright-report/**", "db/migrations/**", "next-env.d.ts", ".tmp*/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { drizzle, "@inngest": inngest },
    rules: {
      // Every UPDATE/DELETE states its WHERE (STYLE 10).
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      ...inngest.configs.recommended.rules,
      "@inngest/await-inngest-send": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-definitions": ["error", "type"],
      // Process-wide state lives in one place (server/runtime/process-singleton.ts, docs/deploy.md): Next.js loads
      // server modules once per bundle, so state is kept per process through processSingleton(key, create).
      "no-restricted-globals": [
        "error",
        { name: "globalThis", message: "Keep process-wide state with processSingleton(key, create) from server/runtime/process-singleton.ts (a named key in PROCESS_SINGLETON_KEYS)." },
        { name: "global", message: "Keep process-wide state with processSingleton(key, create) from server/runtime/process-singleton.ts (a named key in PROCESS_SINGLETON_KEYS)." },
      ],
    },
  },
  {
    // Callers ask a carrier what it does, never which one it is (issue 36, server/carriers/registry.ts): a comparison
    // with a carrier's name is refused outside server/carriers/. A new capability is a field of the carrier entry.
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(simulator|twilio-realtime|telnyx)$/]",
          message: "Do not compare with a voice carrier's name: ask the carrier registry (server/carriers/registry.ts: voiceCarrier(name), carrierOfEngine(kind)) for the capability instead.",
        },
        {
          selector: "SwitchCase > Literal.test[value=/^(simulator|twilio-realtime|telnyx)$/]",
          message: "Do not switch on a voice carrier's name: ask the carrier registry (server/carriers/registry.ts) for the capability instead.",
        },
      ],
    },
  },
  // Each provider's SDK is its own folder's business (issue 36, docs/carriers.md "Ports"): the Realtime SDK only in
  // the conversation (a carrier brings a media leg, server/voice/conversation/media-leg.ts), `twilio` only in
  // server/carriers/twilio/, `telnyx` only in server/carriers/telnyx/. A file matching several blocks takes the last
  // block's rule, so each folder gets one block listing the two SDKs it may not import.
  ...sdkImportRules(),
  {
    // The registry is where the names are.
    files: ["server/carriers/**"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    // The one home of process-wide state: the registry itself lives on globalThis.
    files: ["server/runtime/process-singleton.ts"],
    rules: { "no-restricted-globals": "off" },
  },
  {
    files: ["tests/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-non-null-assertion": "off" },
  },
);
