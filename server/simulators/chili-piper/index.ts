export { startChiliPiperSimulator, EDGE_PREFIX, type ChiliPiperSimulator, type FailNextOptions, type StartChiliPiperSimulatorOptions } from "./server";
export { ensureEmbeddedChiliPiperSimulator, type EmbeddedSimulatorHandle } from "./embedded";
export { SIM_IDS, SIM_DEFAULT_API_KEY, SIM_CRM_CONTACT_DOMAIN, defaultTenant, type SimTenant } from "./fixtures";
