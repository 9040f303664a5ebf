import type { Metadata } from "next";
import { getConsoleMembership } from "@/server/auth/next-auth";
import { Forbidden } from "../../../_components/ui/states";
import { ApiKeysView } from "./api-keys-view";
import { pageParam } from "../../../_components/page-param";

export const metadata: Metadata = { title: "API keys" };

type Props = { params: Promise<{ orgId: string }> };

export default async function ApiKeysPage({ params }: Props) {
  const { membership } = await getConsoleMembership(await pageParam(params, "orgId"));
  // The page is refused on the server, and so is every apiKeys procedure (admin, session only).
  if (membership?.role !== "admin") return <Forbidden what="API key management" />;
  return <ApiKeysView />;
}
