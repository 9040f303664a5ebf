import { Loading } from "../../_components/ui/states";

export default function DashboardLoading() {
  return <Loading rows={4} />;
}
