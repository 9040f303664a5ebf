"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/** Loaded lazily (next/dynamic) so recharts never weighs on the first load of any page. */
export default function DailySpendChart({ days }: { days: Array<{ date: string; spentCredits: number }> }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={days} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="date" tickFormatter={(d: string) => d.slice(5)} minTickGap={16} fontSize={12} />
        <YAxis allowDecimals={false} fontSize={12} width={48} />
        <Tooltip formatter={(value) => [`${value} credits`, "Spent"]} labelFormatter={(label) => `${label} (UTC)`} />
        <Bar dataKey="spentCredits" name="Spent" fill="#1d4ed8" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
