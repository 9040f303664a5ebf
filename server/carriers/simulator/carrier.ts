import type { Carrier } from "../types";

/** The deterministic simulator (the default): the number's last digit chooses the conversation (DESIGN §7). */
export const simulatorCarrier = {
  name: "simulator",
  urlSegment: null,
  dialsDemoData: true,
  simulatesCallbacks: true,
  answersInboundAsHuman: false,
  takesInboundMessages: false,
  streamsRealAudio: false,
  postsEventsToLoopback: true,
  readSettings: () => {},
  facts: () => [
    { label: "Phone calls", value: "Simulated: no real phone is dialled" },
    { label: "Outcome", value: "Chosen by the last digit of the number called" },
  ],
} as const satisfies Carrier;
