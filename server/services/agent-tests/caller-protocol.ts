/**
 * What agent tests' requests to the simulated caller and the judge look like, for any model to read — and for the
 * embedded stand-ins (server/simulators/openai-realtime/conversation-models.ts) to recognize them by.
 */

/** The first words of the simulated caller's system prompt. */
export const CALLER_ROLE_MARKER = "You are role-playing the person who answers an outbound phone call";
/** The simulated caller's reply that ends the conversation. */
export const CALLER_HANG_UP = "[hang up]";
/** The structured-output name of the judge's request. */
export const JUDGE_SCHEMA_NAME = "expectation_judgement";
