import path from "node:path";
import { inject } from "vitest";
import { resetConfigForTests } from "@/server/config/env";

// Code that reads DATABASE_URL (getDb) talks to the test cluster.
process.env.DATABASE_URL = inject("databaseUrl");

// Every log line of the suite (this process and the servers tests start, which inherit the variable) goes to a file
// of the run's log directory; the global teardown scans them for API keys and phone numbers (tests/setup/log-scan.ts).
process.env.LOG_FILE = path.join(inject("logDir"), `vitest-${process.pid}.log`);

// The configuration is read once per process (server/config/env.ts). Tests change settings on the fly (vi.stubEnv,
// process.env.X = …): every change of process.env drops the cached configuration, so the next read sees it.
process.env = new Proxy(process.env, {
  set(target, key, value) {
    const done = Reflect.set(target, key, value);
    resetConfigForTests();
    return done;
  },
  deleteProperty(target, key) {
    const done = Reflect.deleteProperty(target, key);
    resetConfigForTests();
    return done;
  },
});
resetConfigForTests();

// Tests on the real clock dial simulated US numbers at whatever hour the suite runs: quiet hours (on in every
// deployment that calls people) would hold their calls until 8:00 in the contact's zone. The compliance tests that
// check quiet hours delete this at their top and run on a simulated clock.
process.env.COMPLIANCE_QUIET_HOURS = "off";
