"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import type { RouterOutputs } from "../../../_components/router-types";
import { useCan } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { DescriptionList } from "../../../_components/ui/description-list";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input } from "../../../_components/ui/input";
import { LocalTime } from "../../../_components/ui/time";
import { toast } from "../../../_components/ui/toast";
import { agentsText, CAPABILITY_LABELS, permissionLabel } from "./labels";

type Calendar = RouterOutputs["integrations"]["get"]["calendar"];
type Capability = Calendar["capabilities"][number];
type TestOutcome = { ok: true; permissions: number } | { ok: false; message: string };

export function CalendarSection({ calendar }: { calendar: Calendar }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [testOutcome, setTestOutcome] = useState<TestOutcome | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.integrations.get.queryKey() });
  const test = useMutation(
    trpc.integrations.testCalendar.mutationOptions({
      onSuccess: (result) => {
        setTestOutcome(result.ok ? { ok: true, permissions: result.permissions.length } : { ok: false, message: result.message });
        void invalidate();
      },
    }),
  );
  const disconnect = useMutation(
    trpc.integrations.disconnectCalendar.mutationOptions({
      onSuccess: () => {
        setTestOutcome(null);
        toast({ title: "Chili Piper disconnected", description: "The key was deleted." });
        void invalidate();
      },
    }),
  );
  const connection = calendar.connection;

  return (
    <Section
      title="Calendar: Chili Piper"
      description="Agents book meetings during calls in your Chili Piper account."
      actions={calendar.connected ? <Badge tone="success">Connected</Badge> : <Badge tone="neutral">Not connected</Badge>}
      data-testid="calendar-integration"
    >
      {connection ? (
        <DescriptionList
          className="mb-4"
          items={[
            { label: "API key", value: <span data-testid="key-hint">{connection.keyHint ? `Ends in …${connection.keyHint}` : "Stored encrypted"}</span> },
            {
              label: "Connected on",
              value: (
                <>
                  <LocalTime iso={connection.connectedAt} />
                  {connection.connectedBy && <span className="text-muted-foreground"> by {connection.connectedBy.name || connection.connectedBy.email}</span>}
                </>
              ),
            },
            { label: "Permissions checked", value: <LocalTime iso={connection.permissionsCheckedAt} /> },
          ]}
        />
      ) : (
        <Alert tone={calendar.bookingAgents > 0 ? "warning" : "info"} role="note" className="mb-4">
          {calendar.bookingAgents > 0
            ? `${agentsText(calendar.bookingAgents)} set up to book meetings cannot book until Chili Piper is connected: their bookings fail as "not connected".`
            : "Connect Chili Piper to let agents book meetings during calls."}
        </Alert>
      )}

      <h3 className="mb-2 font-semibold">What this key allows</h3>
      <ul className="mb-4 flex flex-col gap-2" data-testid="capabilities">
        {calendar.capabilities.map((capability) => (
          <CapabilityRow key={capability.capability} capability={capability} connected={calendar.connected} />
        ))}
      </ul>

      {can.admin ? (
        <div className="flex flex-col gap-4">
          {connection && (
            <div className="flex flex-wrap items-center gap-2">
              <Button variant="secondary" onClick={() => test.mutate()} disabled={test.isPending}>
                {test.isPending ? "Testing…" : "Test connection"}
              </Button>
              <ConfirmButton
                label="Disconnect"
                size="md"
                title="Disconnect Chili Piper?"
                confirmLabel="Disconnect"
                disabled={disconnect.isPending}
                onConfirm={() => disconnect.mutate()}
              >
                <p>The stored key is deleted.</p>
                <p>
                  {calendar.bookingAgents > 0
                    ? `${agentsText(calendar.bookingAgents)} set up to book meetings will keep calling, but every booking fails as "not connected" until a key is connected again.`
                    : "No agent books meetings now; agents you set up to book later need a connected key."}{" "}
                  Meetings already booked stay in Chili Piper, but support cannot cancel them or add attendees from here.
                </p>
              </ConfirmButton>
            </div>
          )}
          {test.isError && <Alert tone="error">{errorMessage(test.error)}</Alert>}
          {testOutcome && (
            <Alert tone={testOutcome.ok ? "success" : "error"} data-testid="test-result">
              {testOutcome.ok
                ? `The connection works: Chili Piper answered and the key has ${testOutcome.permissions} of the permissions we use.`
                : testOutcome.message}
            </Alert>
          )}
          {disconnect.isError && <Alert tone="error">{errorMessage(disconnect.error)}</Alert>}
          <ConnectForm replacing={calendar.connected} onConnected={() => setTestOutcome(null)} />
        </div>
      ) : (
        <p className="text-sm text-muted-foreground">Only admins can connect, test or disconnect the calendar provider.</p>
      )}
    </Section>
  );
}

function CapabilityRow({ capability, connected }: { capability: Capability; connected: boolean }) {
  const label = CAPABILITY_LABELS[capability.capability];
  const atRisk = !capability.works && capability.agentsUsing > 0;
  return (
    <li className="rounded-md border border-border p-3" data-testid={`capability-${capability.capability}`}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="font-medium">{label.title}</span>
        {!connected ? <Badge tone="neutral">Not connected</Badge> : capability.works ? <Badge tone="success">Works</Badge> : <Badge tone="danger">Missing permissions</Badge>}
      </div>
      <p className="text-sm text-muted-foreground">
        {label.description} {capability.agentsUsing > 0 ? `${agentsText(capability.agentsUsing)} ${capability.agentsUsing === 1 ? "books" : "book"} ${label.usedBy}.` : ""}
      </p>
      {connected && capability.missing.length > 0 && (
        <p className={atRisk ? "mt-1 text-sm text-danger" : "mt-1 text-sm"}>
          Needs: {capability.missing.map(permissionLabel).join(", ")}. Add {capability.missing.length > 1 ? "them" : "it"} to the token in Chili Piper, then
          test the connection.
        </p>
      )}
    </li>
  );
}

function ConnectForm({ replacing, onConnected }: { replacing: boolean; onConnected: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [apiKey, setApiKey] = useState("");
  const connect = useMutation(
    trpc.integrations.connectCalendar.mutationOptions({
      onSuccess: (calendar) => {
        // The key leaves the page's state at once: it is never shown again.
        setApiKey("");
        onConnected();
        queryClient.setQueryData(trpc.integrations.get.queryKey(), (old) => (old ? { ...old, calendar } : old));
        void queryClient.invalidateQueries({ queryKey: trpc.integrations.get.queryKey() });
        toast({ title: replacing ? "Key replaced" : "Chili Piper connected", description: "The key is stored encrypted and will not be shown again." });
      },
    }),
  );

  // The form has one field: whatever refused the key (its check, or Chili Piper) is said under it.
  const errors = formErrors(connect.error, ["apiKey"] as const);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    connect.mutate({ apiKey });
  }

  return (
    <form method="post" onSubmit={onSubmit} className="grid grid-cols-1 items-start gap-3 sm:grid-cols-[minmax(0,28rem)_auto]" aria-label={replacing ? "Replace the API key" : "Connect Chili Piper"}>
      <Field
        label={replacing ? "Replace the API key" : "Chili Piper API key"}
        hint="Create a token in Chili Piper's Admin Center. It is checked with Chili Piper, stored encrypted and never shown again."
        error={errors.fields.apiKey ?? errors.message ?? undefined}
      >
        <Input
          type="password"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          required
          maxLength={512}
          data-testid="calendar-api-key"
        />
      </Field>
      <Button variant={replacing ? "secondary" : "primary"} type="submit" className="sm:mt-6.5 sm:justify-self-start" disabled={connect.isPending || !apiKey.trim()}>
        {connect.isPending ? "Checking the key…" : replacing ? "Replace key" : "Connect"}
      </Button>
    </form>
  );
}
