"use client";

import { useQuery } from "@tanstack/react-query";
import type { TGetCallingHoursResponse } from "@/server/routers/organizations/get-calling-hours.schema";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { Section } from "../../../_components/ui/card";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "../../../_components/ui/table";

type Rule = TGetCallingHoursResponse["rules"][number];

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

const clock = (minutes: number) => `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}`;

/** "Mon–Sat 8:00–20:00; Sun no calls": runs of days with the same window. */
export function describeWeek(week: Rule["week"]): string {
  const parts: string[] = [];
  for (let start = 0; start < 7; ) {
    let end = start;
    const same = (a: Rule["week"][number], b: Rule["week"][number]) => (a === null ? b === null : b !== null && a.start === b.start && a.end === b.end);
    while (end + 1 < 7 && same(week[end + 1]!, week[start]!)) end += 1;
    const days = start === 0 && end === 6 ? "Every day" : start === end ? DAYS[start] : `${DAYS[start]}–${DAYS[end]}`;
    const window = week[start];
    parts.push(`${days} ${window ? `${clock(window.start)}–${clock(window.end)}` : "no calls"}`);
    start = end + 1;
  }
  return parts.join("; ");
}

/** The calling hours in force: what the dial gate holds every call to, by the called person's local time. */
export function CallingHoursSection() {
  const trpc = useTRPC();
  const hours = useQuery(trpc.organizations.callingHours.queryOptions());
  function body() {
    if (hours.isPending) return <Loading rows={3} />;
    if (hours.isError) return <ErrorState error={hours.error} retry={() => void hours.refetch()} />;
    return (
      <div className="flex flex-col gap-3">
        {hours.data.enforced ? (
          <p className="text-sm" data-testid="calling-hours-status">
            Enforced at dial time for every call, in the called person&apos;s local time: the federal hours always, narrowed by the
            person&apos;s country and state (from the area code; the strictest rule wins). A call due outside them is moved to the
            next allowed time, never dropped. Agents&apos; calling windows and <code>bypassCallWindows</code> never override them.
          </p>
        ) : (
          <Alert tone="warning" data-testid="calling-hours-status">
            Quiet hours are switched off on this server (COMPLIANCE_QUIET_HOURS=off, meant for test servers calling simulated numbers).
            Calls are placed at any hour.
          </Alert>
        )}
        <Table>
          <TableCaption>Calling hours by jurisdiction</TableCaption>
          <TableHeader>
            <TableRow>
              <TableHead>Jurisdiction</TableHead>
              <TableHead>Calling hours (local time)</TableHead>
              <TableHead>Holidays</TableHead>
              <TableHead>Attempts</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {hours.data.rules.map((rule) => (
              <TableRow key={rule.jurisdiction}>
                <TableCell>
                  {rule.name} <span className="text-muted-foreground">({rule.jurisdiction})</span>
                </TableCell>
                <TableCell>{describeWeek(rule.week)}</TableCell>
                <TableCell>{rule.closedOnHolidays ? "No calls" : "—"}</TableCell>
                <TableCell>{rule.attemptCap ? `At most ${rule.attemptCap.maxAttempts} per ${rule.attemptCap.perHours} h` : "—"}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </div>
    );
  }
  return (
    <Section title="Calling hours in force" description="Quiet hours: when people may be called. The same for every organization on this server.">
      {body()}
    </Section>
  );
}
