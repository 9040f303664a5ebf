import type { Metadata } from "next";
import { EndpointView } from "./endpoint-view";

export const metadata: Metadata = { title: "Webhook endpoint" };

type Props = { params: Promise<{ endpointId: string }> };

export default async function WebhookEndpointPage({ params }: Props) {
  return <EndpointView endpointId={decodeURIComponent((await params).endpointId)} />;
}
