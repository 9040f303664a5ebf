import type { Metadata } from "next";
import { IntegrationsView } from "./integrations-view";

export const metadata: Metadata = { title: "Integrations" };

/** Every member reads the page; connecting, testing and disconnecting are for admins (refused on the server too). */
export default function IntegrationsPage() {
  return <IntegrationsView />;
}
