export { startOpenAiSimulator, type OpenAiSimulator, type StartOpenAiSimulatorOptions } from "./server";
export { recognize } from "./session";
export { speechAudio } from "./speech";
