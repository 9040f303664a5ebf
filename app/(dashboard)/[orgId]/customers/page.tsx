import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "../../../_components/ui/states";
import { CustomersView } from "./customers-view";

export const metadata: Metadata = { title: "Find a customer" };

export default function CustomersPage() {
  return (
    <Suspense fallback={<Loading rows={5} />}>
      <CustomersView />
    </Suspense>
  );
}
