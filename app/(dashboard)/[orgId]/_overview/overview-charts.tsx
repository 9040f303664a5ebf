"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

type Day = { date: string; calls: number; connected: number; spentCredits: number };

/**
 * The overview's charts, loaded lazily (next/dynamic, no SSR) so recharts (~100 kB gzip) is fetched after the page
 * is usable and never counts in any route's first-load JS (≤ 200 kB each, `npm run bench:first-load-js -- --check`).
 */
export default function OverviewCharts({ days, chart }: { days: Day[]; chart: "calls" | "credits" }) {
  const data = days.map((d) => ({ ...d, notConnected: d.calls - d.connected }));
  return (
    <ResponsiveContainer width="100%" height="100%">
      {chart === "calls" ? (
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="date" tickFormatter={(d: string) => d.slice(5)} minTickGap={16} fontSize={12} />
          <YAxis allowDecimals={false} fontSize={12} width={40} />
          <Tooltip labelFormatter={(label) => `${label} (UTC)`} />
          <Legend />
          <Bar dataKey="connected" name="Connected" stackId="calls" fill="#1d4ed8" isAnimationActive={false} />
          <Bar dataKey="notConnected" name="Not connected" stackId="calls" fill="#94a3b8" isAnimationActive={false} />
        </BarChart>
      ) : (
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="date" tickFormatter={(d: string) => d.slice(5)} minTickGap={16} fontSize={12} />
          <YAxis allowDecimals={false} fontSize={12} width={40} />
          <Tooltip formatter={(value) => [`${value} credits`, "Spent"]} labelFormatter={(label) => `${label} (UTC)`} />
          <Bar dataKey="spentCredits" name="Credits spent" fill="#047857" isAnimationActive={false} />
        </BarChart>
      )}
    </ResponsiveContainer>
  );
}
