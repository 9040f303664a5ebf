import { z } from "zod";
import { MAX_QUERY_YEAR, MIN_QUERY_YEAR } from "@/server/schemas/limits";
import { parseUtcDay } from "@/server/services/conversations/search-conversations";

/*
 * Query-string parameters parsed explicitly from their text. trpc-to-openapi switches on `coerce` inside the zod
 * number/boolean schemas it serves (Boolean("false") === true; Number("") === 0) and that mutation would also change
 * the dashboard's tRPC calls afterwards. These schemas are string-based pipes, which it leaves alone; numbers from
 * the dashboard are accepted too. The OpenAPI document shows the parsed type through `override`.
 */

type JsonSchemaLike = Record<string, unknown>;

function overrideAs(schema: JsonSchemaLike) {
  return ({ jsonSchema }: { jsonSchema: JsonSchemaLike }) => {
    for (const key of Object.keys(jsonSchema)) if (key !== "description") delete jsonSchema[key];
    Object.assign(jsonSchema, schema);
  };
}

/**
 * An integer query parameter within [min, max]: digits only — "abc", "1.5", "1e3", "+5", " 5", "" and out-of-range
 * values are 400s (never `Number(string)`, which reads "1e3" as 1000 and "" as 0).
 */
export function queryInteger(options: { min: number; max: number; description: string }) {
  const message = `must be an integer from ${options.min} to ${options.max} (digits only)`;
  return z
    .preprocess(
      (value) => (typeof value === "number" ? String(value) : value),
      // More digits than the bound has cannot be in range: refused before Number() reads them.
      z.string().regex(/^\d+$/, message).max(String(options.max).length + 2, message),
    )
    .transform(Number)
    .pipe(z.number().int().min(options.min, message).max(options.max, message))
    .describe(options.description)
    .meta({ override: overrideAs({ type: "integer", minimum: options.min, maximum: options.max }) });
}

/** DESIGN §4: `true` in any letter case is true; every other value (or none) is false. Never Boolean(string). */
export function queryFlag(description: string) {
  return z
    .preprocess((value) => (typeof value === "boolean" ? String(value) : value), z.string().optional())
    .transform((value) => value?.toLowerCase() === "true")
    .describe(description)
    .meta({ override: overrideAs({ type: "boolean", default: false }) });
}

/** A real, zero-padded UTC calendar date `YYYY-MM-DD` in the years 1900–9999 (2024-02-30 and 2024-2-3 are 400s). */
export function queryUtcDate(description: string) {
  return z
    .string()
    .max(10, "must be a zero-padded date YYYY-MM-DD")
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a zero-padded date YYYY-MM-DD")
    .refine((value) => parseUtcDay(value) !== null, `must be a real calendar date YYYY-MM-DD from ${MIN_QUERY_YEAR}-01-01 to ${MAX_QUERY_YEAR}-12-31`)
    .describe(description)
    .meta({ override: overrideAs({ type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" }) });
}
