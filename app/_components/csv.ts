import type { UnparseConfig, UnparseObject } from "papaparse";

/**
 * Cells a spreadsheet would run as a formula (OWASP "CSV injection"): starting with `=`, `@`, a tab or a carriage
 * return, or with `+`/`-` followed by anything but a number (`+1+1`, `-cmd|…`). Plain numbers and phone numbers
 * (`-5`, `+14155550171`, `+1 (415) 555-0171`) hold no letters, so no function call: they stay as they are.
 */
export const CSV_FORMULA = /^(?:[=@\t\r]|[+-](?![\d\s().-]*$))/;

/**
 * Every CSV the console writes goes through here: papaparse's unparse with `escapeFormulae`, which puts a `'` before
 * such a cell so spreadsheets show it as text (`=1+1` → `'=1+1`).
 */
export async function toCsv(input: UnparseObject<unknown> | Array<Record<string, unknown>>, config: UnparseConfig = {}): Promise<string> {
  const { unparse } = await import("papaparse");
  return unparse(input, { ...config, escapeFormulae: CSV_FORMULA });
}

/** The reverse on the way in: a CSV the console wrote (rejected rows, exports) can be uploaded again as it is. */
export function unescapeCsvCell(value: string): string {
  return value.startsWith("'") && CSV_FORMULA.test(value.slice(1)) ? value.slice(1) : value;
}
