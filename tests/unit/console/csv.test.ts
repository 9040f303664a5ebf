import { describe, expect, it } from "vitest";
import { toCsv, unescapeCsvCell } from "@/app/_components/csv";
import { rejectedRowsCsv } from "@/app/(dashboard)/[orgId]/import/csv-import";
import { numbersOfCsv } from "@/app/(dashboard)/[orgId]/suppressions/suppression-csv";

describe("CSV downloads: cells a spreadsheet would run as formulas are text", () => {
  it("puts a ' before =, @, tab, CR and +/- followed by more than a number; numbers and phone numbers stay as they are", async () => {
    const rows = [
      { name: "=1+1", phoneNumber: "+14155550171" },
      { name: "=HYPERLINK(\"http://evil.example\",\"x\")", phoneNumber: "+1 (415) 555-0171" },
      { name: "@SUM(A1:A2)", phoneNumber: "-5" },
      { name: "+1+1", phoneNumber: "-cmd|' /C calc'!A0" },
      { name: "\tTab", phoneNumber: "Ada" },
    ];
    const lines = (await toCsv(rows)).split("\r\n");
    expect(lines).toEqual([
      "name,phoneNumber",
      `"'=1+1",+14155550171`,
      `"'=HYPERLINK(""http://evil.example"",""x"")",+1 (415) 555-0171`,
      `"'@SUM(A1:A2)",-5`,
      `"'+1+1","'-cmd|' /C calc'!A0"`,
      `"'\tTab",Ada`,
    ]);
  });

  it("escapes the rejected rows of an import too, and reads its own escapes back when the file is uploaded again", async () => {
    const csv = await rejectedRowsCsv([{ row: 0, reason: "INVALID_PHONE_NUMBER", error: "bad" }], ["name", "phone"], [{ name: "=1+1", phone: "=2" }]);
    expect(csv.split("\r\n")[1]).toBe(`1,INVALID_PHONE_NUMBER,bad,"'=1+1","'=2"`);
    expect(unescapeCsvCell("'=1+1")).toBe("=1+1");
    expect(unescapeCsvCell("'+14155550171")).toBe("'+14155550171");
    expect(unescapeCsvCell("O'Brien")).toBe("O'Brien");
  });
});

describe("suppressions CSV import: the file's own line numbers", () => {
  it("counts the header line, empty lines and line breaks inside quotes", async () => {
    const text = 'phone,note\n+14155550171,a\n\nnot a number,b\n"+14155550172","two\nlines"\n12,c\n';
    expect(await numbersOfCsv(text)).toEqual([
      { line: 2, phoneNumber: "+14155550171" },
      { line: 4, phoneNumber: "not a number" },
      { line: 5, phoneNumber: "+14155550172" },
      { line: 7, phoneNumber: "12" },
    ]);
    // Without a header row the first line is a number.
    expect(await numbersOfCsv("+14155550171\r\nbad\r\n")).toEqual([
      { line: 1, phoneNumber: "+14155550171" },
      { line: 2, phoneNumber: "bad" },
    ]);
  });
});
