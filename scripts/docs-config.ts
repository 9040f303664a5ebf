/** `npm run docs:config`: writes docs/configuration.md from the settings declared in server/config/settings/ (joined in server/config/env.ts). */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { renderConfigurationDoc } from "@/server/config/configuration-doc";

const file = path.resolve("docs/configuration.md");
writeFileSync(file, renderConfigurationDoc());
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
