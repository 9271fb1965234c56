import { formatUsd } from "../../usage/money";

/** One day of the chart: its UTC date and what was spent. */
export interface DayCost {
  day: string;
  cost_usd: number;
}

const WIDTH = 640;
const HEIGHT = 220;
/** Room for the axis labels: the largest amount on the left, dates under the bars. */
const LEFT = 72;
const BOTTOM = 28;
const TOP = 12;

/**
 * Cost per day as bars, drawn on the server (no script): one bar per day that had spend, each
 * with a <title> naming its day and amount (read by screen readers, shown on hover), the chart
 * named by its own <title> and <desc>. The same numbers are in the table beside it.
 */
export function CostChart(props: { days: DayCost[] }) {
  const { days } = props;
  const max = Math.max(0, ...days.map((d) => d.cost_usd));
  const plotWidth = WIDTH - LEFT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(days.length, 1);
  const total = days.reduce((sum, d) => sum + d.cost_usd, 0);
  const spent = days.filter((d) => d.cost_usd > 0);
  const first = days[0]?.day ?? "";
  const last = days.at(-1)?.day ?? "";
  return (
    <svg class="cost-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="cost-chart-title cost-chart-desc">
      <title id="cost-chart-title">Cost per day, {`${first} to ${last}`} (UTC)</title>
      <desc id="cost-chart-desc">
        {spent.length === 0
          ? "Nothing was spent on model requests in these days."
          : `${spent.length} of ${days.length} days had spending, ${formatUsd(total)} in all; the most in one day was ${formatUsd(max)}.`}
      </desc>
      <line x1={LEFT} y1={TOP + plotHeight} x2={WIDTH} y2={TOP + plotHeight} class="axis" />
      <text x={LEFT - 6} y={TOP + 10} text-anchor="end" class="label">
        {formatUsd(max)}
      </text>
      <text x={LEFT - 6} y={TOP + plotHeight} text-anchor="end" class="label">
        $0
      </text>
      {days.map((d, i) =>
        d.cost_usd > 0 ? (
          <rect
            class="bar"
            x={(LEFT + i * slot + slot * 0.15).toFixed(1)}
            // A day's bar is never thinner than a pixel, however small next to the largest.
            y={(TOP + plotHeight - Math.max(1, (d.cost_usd / max) * plotHeight)).toFixed(1)}
            width={(slot * 0.7).toFixed(1)}
            height={Math.max(1, (d.cost_usd / max) * plotHeight).toFixed(1)}
          >
            <title>{`${d.day}: ${formatUsd(d.cost_usd)}`}</title>
          </rect>
        ) : null,
      )}
      <text x={LEFT} y={HEIGHT - 8} class="label">
        {first}
      </text>
      <text x={WIDTH} y={HEIGHT - 8} text-anchor="end" class="label">
        {last}
      </text>
    </svg>
  );
}

export const CHART_STYLE = `
.cost-chart{width:100%;height:auto;max-width:640px;display:block}
.cost-chart .bar{fill:#1d4ed8}
.cost-chart .axis{stroke:#6b7280;stroke-width:1}
.cost-chart .label{font-size:12px;fill:#374151}
`;
