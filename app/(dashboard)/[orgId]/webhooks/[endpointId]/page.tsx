import type { Metadata } from "next";
import { EndpointView } from "./endpoint-view";
import { pageParam } from "../../../../_components/page-param";

export const metadata: Metadata = { title: "Webhook endpoint" };

type Props = { params: Promise<{ endpointId: string }> };

export default async function WebhookEndpointPage({ params }: Props) {
  return <EndpointView endpointId={await pageParam(params, "endpointId")} />;
}
