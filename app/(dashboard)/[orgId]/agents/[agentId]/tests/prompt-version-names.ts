"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/server/trpc/client/react";

function savedOn(iso: string): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(new Date(iso));
}

/**
 * What the console calls a prompt version: "Version 3 (saved Nov 28, 2026)", never its `prompt-ver.…` ID (that sits
 * behind the IDs disclosure). Read from the agent's version list (its 50 newest); an older one is "An earlier version".
 */
export function usePromptVersionNames(agentId: string): (promptVersionId: string) => string {
  const trpc = useTRPC();
  const versions = useQuery(trpc.agentTests.listPromptVersions.queryOptions({ agentId }));
  const byId = new Map((versions.data?.versions ?? []).map((version) => [version.promptVersionId, version]));
  return (promptVersionId) => {
    const version = byId.get(promptVersionId);
    if (version) return `Version ${version.number} (saved ${savedOn(version.createdAt)})`;
    return versions.isPending ? "Prompt version" : "An earlier version";
  };
}
