import { settingsOf } from "./setting";
import { text } from "./value-types";

/** The models of agent tests' simulated conversations (server/services/agent-tests/models.ts, docs/agent-testing.md). */
const setting = settingsOf("Agent tests");

export const agentTestSettings = {
  AGENT_TEST_MODEL: setting(text().default("gpt-4.1-mini"), {
    description:
      "The chat model that plays the agent in agent tests' simulated conversations (and judges `judge` expectations), through `OPENAI_BASE_URL` with `OPENAI_API_KEY`. Without `OPENAI_API_KEY` tests use the embedded OpenAI simulator's rule-based stand-ins (docs/agent-testing.md).",
    default: "`gpt-4.1-mini`",
    sameOnEveryInstance: true,
  }),
  AGENT_TEST_CALLER_MODEL: setting(text().default("gpt-4.1-mini"), {
    description: "The chat model that plays the simulated caller in agent tests.",
    default: "`gpt-4.1-mini`",
    sameOnEveryInstance: true,
  }),
};
