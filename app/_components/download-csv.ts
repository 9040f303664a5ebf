import { toCsv } from "./csv";

/** Saves text as a file in the browser (the object URL is released once the download has started). */
export function saveCsvText(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Saves rows as a CSV file in the browser, formula-like cells escaped (see toCsv). */
export async function downloadCsv(filename: string, rows: Array<Record<string, string | number | null>>, columns?: string[]) {
  saveCsvText(filename, columns && rows.length === 0 ? `${columns.join(",")}\n` : await toCsv(rows, columns ? { columns } : undefined));
}
