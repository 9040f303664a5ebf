import type { CallingRule, DayWindow } from "./calling-rules";

/**
 * The calling-rules table as Markdown rows, for docs/compliance.md (a unit test checks that the document shows every
 * row of calling-rules.ts exactly as formatted here):
 *
 *   npx tsx -e 'import("./server/services/compliance/calling-rules-table.ts").then((m) => console.log(m.formatCallingRulesTable()))'
 */
const DAY_NAMES = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;

function formatTime(minutes: number): string {
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}`;
}

function formatWindow(window: DayWindow | null): string {
  return window ? `${formatTime(window.start)}–${formatTime(window.end)}` : "closed";
}

/** "Mon–Sat 8:00–20:00, Sun closed": consecutive days with the same window are grouped. */
export function formatWeek(week: CallingRule["week"]): string {
  const groups: { from: number; to: number; text: string }[] = [];
  week.forEach((window, day) => {
    const text = formatWindow(window);
    const last = groups[groups.length - 1];
    if (last && last.text === text) last.to = day;
    else groups.push({ from: day, to: day, text });
  });
  if (groups.length === 1) return `every day ${groups[0]!.text}`;
  return groups.map((group) => `${DAY_NAMES[group.from]}${group.to > group.from ? `–${DAY_NAMES[group.to]}` : ""} ${group.text}`).join(", ");
}

export function formatCallingRuleRow(rule: CallingRule): string {
  const cap = rule.attemptCap ? `${rule.attemptCap.maxAttempts} per ${rule.attemptCap.perHours} h` : "—";
  return `| ${rule.jurisdiction} | ${rule.name} | ${formatWeek(rule.week)} | ${rule.closedOnHolidays ? "closed" : "—"} | ${cap} | ${rule.citations.join("; ")} |`;
}

export function formatCallingRulesTable(rules: readonly CallingRule[]): string {
  return ["| Jurisdiction | Name | Calling hours (local time of the called person) | Legal holidays | Attempt cap | Sources |", "|---|---|---|---|---|---|", ...rules.map(formatCallingRuleRow)].join("\n");
}
