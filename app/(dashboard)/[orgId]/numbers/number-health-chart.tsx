"use client";

import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export type HealthChartDay = {
  day: string;
  answered: number;
  voicemail: number;
  noAnswer: number;
  busy: number;
  failed: number;
  shortCalls: number;
  optOuts: number;
  stops: number;
  answerRate: number | null;
};

const percent = (value: number) => `${Math.round(value * 100)}%`;

/**
 * A number's last days: its calls stacked by outcome (the stack is the calls placed), its answer rate (right axis), and
 * its short calls and opt-outs. Loaded lazily (next/dynamic) so recharts never weighs on the first load of any page.
 */
export default function NumberHealthChart({ days }: { days: HealthChartDay[] }) {
  const data = days.map((day) => ({ ...day, other: day.busy + day.failed, optOutsAndStops: day.optOuts + day.stops }));
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart data={data} margin={{ top: 8, right: 0, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="day" tickFormatter={(d: string) => d.slice(5)} minTickGap={16} fontSize={12} />
        <YAxis yAxisId="calls" allowDecimals={false} fontSize={12} width={40} />
        <YAxis yAxisId="rate" orientation="right" domain={[0, 1]} tickFormatter={percent} fontSize={12} width={44} />
        <Tooltip
          labelFormatter={(label) => `${label} (UTC)`}
          formatter={(value, name) => (name === "Answer rate" && typeof value === "number" ? [percent(value), name] : [value, name])}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar yAxisId="calls" dataKey="answered" name="Answered" stackId="calls" fill="#15803d" isAnimationActive={false} />
        <Bar yAxisId="calls" dataKey="voicemail" name="Voicemail" stackId="calls" fill="#a16207" isAnimationActive={false} />
        <Bar yAxisId="calls" dataKey="noAnswer" name="No answer" stackId="calls" fill="#9ca3af" isAnimationActive={false} />
        <Bar yAxisId="calls" dataKey="other" name="Busy or failed" stackId="calls" fill="#4b5563" isAnimationActive={false} />
        <Line yAxisId="calls" dataKey="shortCalls" name="Short calls (< 10 s)" stroke="#7c3aed" dot={false} isAnimationActive={false} />
        <Line yAxisId="calls" dataKey="optOutsAndStops" name="Opt-outs and STOPs" stroke="#b91c1c" dot={false} isAnimationActive={false} />
        <Line yAxisId="rate" dataKey="answerRate" name="Answer rate" stroke="#1d4ed8" strokeWidth={2} connectNulls dot={false} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
