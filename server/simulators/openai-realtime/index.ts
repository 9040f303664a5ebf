export { startOpenAiSimulator, type OpenAiSimulator, type StartOpenAiSimulatorOptions } from "./server";
export { recognize } from "./session";
