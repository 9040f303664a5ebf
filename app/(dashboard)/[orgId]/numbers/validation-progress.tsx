"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { formatPhoneNumber } from "../../../_components/ui/format";

export type StartedValidation = { numberId: string; phoneNumber: string; validationCode: string };

/**
 * A caller-ID validation under way: the code to enter on the carrier's call, and the number's status read again every
 * 2 seconds until it is no longer `verifying` (then the inventory is refreshed).
 */
export function ValidationProgress({ validation }: { validation: StartedValidation }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const number = useQuery({
    ...trpc.numbers.get.queryOptions({ numberId: validation.numberId }),
    refetchInterval: (query) => (query.state.data?.number.status === "verifying" || !query.state.data ? 2000 : false),
  });
  const status = number.data?.number.status ?? "verifying";
  useEffect(() => {
    if (status !== "verifying") void queryClient.invalidateQueries({ queryKey: trpc.numbers.list.queryKey() });
  }, [status, queryClient, trpc]);
  const phone = formatPhoneNumber(validation.phoneNumber);
  if (status === "active") {
    return (
      <Alert tone="success" data-testid="validation-progress" data-status={status}>
        {phone} is proved: it is yours and can be put in a pool.
      </Alert>
    );
  }
  if (status !== "verifying") {
    return (
      <Alert tone="error" data-testid="validation-progress" data-status={status}>
        {phone} was not proved{number.data?.number.statusReason ? `: ${number.data.number.statusReason}` : "."}
      </Alert>
    );
  }
  return (
    <Alert tone="info" data-testid="validation-progress" data-status={status}>
      <p>
        The carrier is calling {phone}. Answer it and enter this code on the keypad:{" "}
        <strong className="font-mono text-lg tracking-widest" data-testid="validation-code">
          {validation.validationCode}
        </strong>
      </p>
      <p className="text-sm">Waiting for the code to be entered…</p>
    </Alert>
  );
}
