import js from "@eslint/js";
import inngest from "@inngest/eslint-plugin";
import drizzle from "eslint-plugin-drizzle";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["node_modules/**", ".next/**", ".data/**", ".data-*/**", "test-results/**", "playwright-report/**", "db/migrations/**", "next-env.d.ts", ".tmp*/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { drizzle, "@inngest": inngest },
    rules: {
      // Every UPDATE/DELETE states its WHERE (STYLE 10).
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      ...inngest.configs.recommended.rules,
      "@inngest/await-inngest-send": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-definitions": ["error", "type"],
    },
  },
  {
    files: ["tests/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-non-null-assertion": "off" },
  },
);
