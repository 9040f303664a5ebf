"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { formatPhoneNumber, plural } from "../../../_components/ui/format";
import { Input } from "../../../_components/ui/input";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { LocalTime } from "../../../_components/ui/time";
import { toast } from "../../../_components/ui/toast";

const NumberHealthChart = dynamic(() => import("./number-health-chart"), { ssr: false, loading: () => <Loading label="Loading chart…" /> });

type PhoneNumber = RouterOutputs["numbers"]["list"]["numbers"][number];
type Day = RouterOutputs["numbers"]["days"]["days"][number];
const dayCol = columnsFor<Day>();
const rate = (value: number | null) => (value === null ? "—" : `${Math.round(value * 100)}%`);
const dayColumns = [
  dayCol.accessor("day", { header: "Day (UTC)" }),
  dayCol.accessor("placed", { header: "Placed", meta: { numeric: true } }),
  dayCol.accessor("answered", { header: "Answered", meta: { numeric: true } }),
  dayCol.accessor("answerRate", { header: "Answer rate", meta: { numeric: true }, cell: ({ getValue }) => rate(getValue()) }),
  dayCol.accessor("shortCalls", { header: "Short calls", meta: { numeric: true } }),
  dayCol.accessor("voicemail", { header: "Voicemail", meta: { numeric: true } }),
  dayCol.accessor("noAnswer", { header: "No answer", meta: { numeric: true } }),
  dayCol.accessor((day) => day.optOuts + day.stops, { id: "optOuts", header: "Opt-outs and STOPs", meta: { numeric: true } }),
];

/** Why the number is in or out of the rotation, in words (docs/numbers.md "Number health"). */
export function HealthExplanation({ number }: { number: PhoneNumber }) {
  const { health } = number;
  if (health.state === "resting") {
    return (
      <Alert tone="warning" role="note" data-testid="why-it-rests">
        <p className="font-semibold">
          Why it rests: {health.reason ?? "people stopped answering it compared with your other numbers calling the same places at the same hours"}.
        </p>
        <p>
          It places no calls until <LocalTime iso={health.restingUntil} />, then comes back under watch. The dialer does not swap in another number to
          dodge a spam label: the pool&apos;s other numbers carry on under their daily caps.
        </p>
      </Alert>
    );
  }
  if (health.state === "watch") {
    return (
      <Alert tone="info" role="note" data-testid="why-it-rests">
        Under watch{health.reason ? `: ${health.reason}` : ""}. It stays in the rotation; if people keep answering it less than your other numbers, it rests.
      </Alert>
    );
  }
  return (
    <p className="text-sm text-muted-foreground" data-testid="why-it-rests">
      Healthy: people answer it about as often as your other numbers calling the same places at the same hours.
    </p>
  );
}

function DailyCapForm({ number }: { number: PhoneNumber }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [cap, setCap] = useState(number.dailyCallCapIsDefault ? "" : String(number.dailyCallCap));
  const update = useMutation(
    trpc.numbers.update.mutationOptions({
      onSuccess: (data) => {
        toast({ title: `${formatPhoneNumber(data.number.phoneNumber)}: ${plural(data.number.dailyCallCap, "call")} a day at most` });
        void queryClient.invalidateQueries({ queryKey: trpc.numbers.pathKey() });
      },
    }),
  );
  const errors = formErrors(update.error, ["dailyCallCap"] as const);
  const id = `daily-cap-${number.numberId.replace(/\W/g, "-")}`;
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const value = cap.trim();
    update.mutate({ numberId: number.numberId, dailyCallCap: value === "" ? null : Number(value) });
  }
  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-2" aria-label={`Daily call cap of ${formatPhoneNumber(number.phoneNumber)}`}>
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Daily call cap" id={id} hint="Calls a day from this number. Empty: the deployment's default." error={errors.fields.dailyCallCap} className="w-full sm:w-64">
          <Input type="number" inputMode="numeric" min={1} max={10000} value={cap} onChange={(e) => setCap(e.target.value)} placeholder={number.dailyCallCapIsDefault ? String(number.dailyCallCap) : "default"} />
        </Field>
        <Button type="submit" disabled={update.isPending}>
          {update.isPending ? "Saving…" : "Save cap"}
        </Button>
      </div>
      {errors.message && <Alert tone="error">{errors.message}</Alert>}
    </form>
  );
}

/** A number opened from the inventory: why it rests, its last 30 days charted (and as a table), its daily cap. */
export function NumberDetails({ number }: { number: PhoneNumber }) {
  const trpc = useTRPC();
  const can = useCan();
  const days = useQuery(trpc.numbers.days.queryOptions({ numberId: number.numberId, days: 30 }));
  return (
    <div className="flex flex-col gap-3" data-testid="number-details">
      <HealthExplanation number={number} />
      <h3 className="font-semibold">Last 30 days</h3>
      {days.isPending ? (
        <Loading label="Loading the number's days…" />
      ) : days.isError ? (
        <ErrorState error={days.error} retry={() => void days.refetch()} />
      ) : (
        <>
          <p className="text-sm text-muted-foreground">
            {plural(
              days.data.days.reduce((sum, day) => sum + day.placed, 0),
              "call",
            )}{" "}
            placed, {days.data.days.reduce((sum, day) => sum + day.answered, 0).toLocaleString("en-US")} answered by a person.
          </p>
          <div className="h-64 w-full" data-testid="number-health-chart" role="img" aria-label={`Calls of ${formatPhoneNumber(number.phoneNumber)} per day over the last 30 days, by outcome, with the answer rate`}>
            <NumberHealthChart days={days.data.days} />
          </div>
          <details>
            <summary className="cursor-pointer">Daily figures as a table</summary>
            <DataTable columns={dayColumns} data={days.data.days} getRowId={(day) => day.day} caption={`Calls of ${number.phoneNumber} per UTC day`} pageSize={31} className="mt-2" />
          </details>
        </>
      )}
      {can.admin && number.status !== "released" && <DailyCapForm number={number} />}
    </div>
  );
}
