import type { Metadata } from "next";
import { ComplianceView } from "./compliance-view";

export const metadata: Metadata = { title: "Compliance" };

export default function CompliancePage() {
  return <ComplianceView />;
}
