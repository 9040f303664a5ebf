/**
 * An app stand-in for tests/integration/call-engine/simulator-process.test.ts: starts the voice simulator's process
 * (server/voice/simulator/process-engine.ts), sends `{ simulatorPid }` over IPC once it is ready, then idles until
 * killed — so the test can kill this "app" and see its simulator go too.
 */
import { createSimulatorProcessEngine } from "@/server/voice/simulator/process-engine";

async function main() {
  const engine = createSimulatorProcessEngine({ eventsUrl: "http://127.0.0.1:9/api/voice/events", secret: Buffer.alloc(32, 7) });
  await engine.ready();
  process.send?.({ simulatorPid: engine.pid() });
  setInterval(() => {}, 60_000);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
