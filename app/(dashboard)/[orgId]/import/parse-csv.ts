import type { ParseError, Parser } from "papaparse";
import { unescapeCsvCell } from "../../../_components/csv";

export type ParsedCsv = {
  headers: string[];
  rows: Array<Record<string, string | undefined>>;
  /** The first few problems the parser reported (ragged rows, unclosed quotes), with their data row. */
  problems: Array<{ row: number | null; message: string }>;
  truncated: boolean;
};

export const MAX_IMPORT_ROWS = 100_000;
/** Files above this size are parsed in a Web Worker so the page stays responsive. */
const WORKER_THRESHOLD_BYTES = 512 * 1024;

/** A row of a CSV the console wrote itself (the rejected rows) reads as it was uploaded: `'=1+1` → `=1+1`. */
function unescapeRow(row: Record<string, string | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const key in row) {
    const value = row[key];
    out[key] = typeof value === "string" ? unescapeCsvCell(value) : value;
  }
  return out;
}

/**
 * Streams a CSV file through papaparse (loaded on demand), chunk by chunk, in a worker for large files. The first line
 * is the header; fully empty lines are skipped. Stops at MAX_IMPORT_ROWS rows.
 */
export async function parseCsvFile(file: File, onProgress: (rowsRead: number) => void): Promise<ParsedCsv> {
  const Papa = (await import("papaparse")).default;
  return new Promise<ParsedCsv>((resolve, reject) => {
    const rows: ParsedCsv["rows"] = [];
    const problems: ParsedCsv["problems"] = [];
    let headers: string[] = [];
    let truncated = false;
    Papa.parse<Record<string, string | undefined>>(file, {
      header: true,
      skipEmptyLines: "greedy",
      worker: file.size > WORKER_THRESHOLD_BYTES && typeof Worker !== "undefined",
      transformHeader: (header: string) => header.trim(),
      chunk: (results: Papa.ParseResult<Record<string, string | undefined>>, parser: Parser) => {
        if (results.meta.fields && headers.length === 0) headers = results.meta.fields;
        for (const error of results.errors as ParseError[]) {
          if (problems.length < 20) problems.push({ row: typeof error.row === "number" ? rows.length + error.row + 1 : null, message: error.message });
        }
        const room = MAX_IMPORT_ROWS - rows.length;
        const data = results.data.map(unescapeRow);
        if (data.length > room) {
          rows.push(...data.slice(0, room));
          truncated = true;
          parser.abort();
        } else {
          rows.push(...data);
        }
        onProgress(rows.length);
      },
      complete: () => resolve({ headers, rows, problems, truncated }),
      error: (error: Error) => reject(error),
    });
  });
}
