import { unescapeCsvCell } from "../../../_components/csv";

const PHONE_COLUMNS = ["phonenumber", "phone_number", "phone", "number", "e164"];

/** A number of an imported CSV file, with the file's line it came from (1-based, the header line counted). */
export type CsvNumber = { line: number; phoneNumber: string };

/**
 * The numbers of a CSV file: the column named like a phone number, else the first column; a header row is skipped,
 * and so are empty lines and empty cells. Each keeps its line in the file, so a refused number is reported where the
 * user sees it (records spanning several lines, inside quotes, count as their first line).
 */
export async function numbersOfCsv(text: string): Promise<CsvNumber[]> {
  const Papa = (await import("papaparse")).default;
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: false });
  const rows: Array<{ line: number; cells: string[] }> = [];
  let line = 1;
  for (const cells of parsed.data) {
    if (cells.some((cell) => cell.trim() !== "")) rows.push({ line, cells });
    line += 1 + cells.reduce((breaks, cell) => breaks + (cell.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
  }
  if (rows.length === 0) return [];
  const header = rows[0]!.cells.map((cell) => cell.trim().toLowerCase());
  const named = header.findIndex((cell) => PHONE_COLUMNS.includes(cell));
  const column = named === -1 ? 0 : named;
  const hasHeader = named !== -1 || !/\d{3}/.test(rows[0]!.cells[0] ?? "");
  return (hasHeader ? rows.slice(1) : rows)
    .map(({ line: at, cells }) => ({ line: at, phoneNumber: unescapeCsvCell((cells[column] ?? "").trim()) }))
    .filter((item) => item.phoneNumber !== "");
}
