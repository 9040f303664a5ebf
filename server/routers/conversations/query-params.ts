import { z } from "zod";
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

/** An integer query parameter within [min, max]; "abc", "1.5", "" and out-of-range values are 400s. */
export function queryInteger(options: { min: number; max?: number; description: string }) {
  const range = options.max === undefined ? `>= ${options.min}` : `from ${options.min} to ${options.max}`;
  return z
    .preprocess(
      (value) => (typeof value === "number" ? String(value) : value),
      z.string().regex(/^\d+$/, `must be an integer ${range}`),
    )
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(options.min, `must be an integer ${range}`)
        .max(options.max ?? Number.MAX_SAFE_INTEGER, `must be an integer ${range}`),
    )
    .describe(options.description)
    .meta({
      override: overrideAs({
        type: "integer",
        minimum: options.min,
        ...(options.max === undefined ? {} : { maximum: options.max }),
      }),
    });
}

/** DESIGN §4: `true` in any letter case is true; every other value (or none) is false. Never Boolean(string). */
export function queryFlag(description: string) {
  return z
    .preprocess((value) => (typeof value === "boolean" ? String(value) : value), z.string().optional())
    .transform((value) => value?.toLowerCase() === "true")
    .describe(description)
    .meta({ override: overrideAs({ type: "boolean", default: false }) });
}

/** A real, zero-padded UTC calendar date `YYYY-MM-DD` (2024-02-30 and 2024-2-3 are 400s). */
export function queryUtcDate(description: string) {
  return z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a zero-padded date YYYY-MM-DD")
    .refine((value) => parseUtcDay(value) !== null, "must be a real calendar date YYYY-MM-DD")
    .describe(description)
    .meta({ override: overrideAs({ type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" }) });
}
