"use client";

import { createContext, useContext, type ReactNode } from "react";

export type Role = "admin" | "support" | "member";
export type ConsoleOrg = {
  orgId: string;
  name: string;
  role: Role;
  email: string;
  organizations: Array<{ orgId: string; name: string; role: Role }>;
  /** Server-wide operator (OPERATOR_EMAILS): sees every organization's background jobs. */
  operator: boolean;
};

const OrgContext = createContext<ConsoleOrg | null>(null);

export function OrgProvider({ value, children }: { value: ConsoleOrg; children: ReactNode }) {
  return <OrgContext.Provider value={value}>{children}</OrgContext.Provider>;
}

export function useOrg(): ConsoleOrg {
  const value = useContext(OrgContext);
  if (!value) throw new Error("useOrg outside the dashboard");
  return value;
}

/** For showing or hiding controls only: the server checks the role on every procedure anyway. */
export function useCan() {
  const { role } = useOrg();
  return { admin: role === "admin", support: role === "admin" || role === "support" };
}

/** `/{orgId}/…` paths of the console. */
export function useOrgPath() {
  const { orgId } = useOrg();
  return (path = "") => `/${encodeURIComponent(orgId)}${path}`;
}
