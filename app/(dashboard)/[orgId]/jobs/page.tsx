import type { Metadata } from "next";
import { getConsoleMembership } from "@/server/auth/next-auth";
import { isOperatorEmail } from "@/server/config/settings";
import { Forbidden } from "../../../_components/ui/states";
import { JobsView } from "./jobs-view";
import { pageParam } from "../../../_components/page-param";

export const metadata: Metadata = { title: "Jobs" };

type Props = { params: Promise<{ orgId: string }> };

export default async function JobsPage({ params }: Props) {
  const { membership } = await getConsoleMembership(await pageParam(params, "orgId"));
  const operator = isOperatorEmail(membership?.email);
  if (membership?.role !== "admin" && !operator) return <Forbidden what="The background jobs view" />;
  return <JobsView operator={operator} />;
}
