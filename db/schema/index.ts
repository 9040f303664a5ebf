export * from "./organizations";
export * from "./agents";
export * from "./credits";
export * from "./sequences";
export * from "./rate-limits";
export * from "./providers";
export * from "./jobs";
export * from "./webhooks";
