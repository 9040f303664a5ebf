import { Loading } from "../../_components/states";

export default function DashboardLoading() {
  return <Loading rows={4} />;
}
