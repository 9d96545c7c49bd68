/** One line of the results table: the product figure next to its baseline measured in the same run. */
export interface Row {
  scenario: string;
  metric: string;
  product: number;
  baseline: number | null;
  baselineLabel: string;
  /** product / baseline (for latencies and times, where lower is better, still product / baseline). */
  ratio: number | null;
  target: string;
  met: boolean | null;
  unit: string;
}

/** A read's p95 beside its p50, against a p95 target in ms (null: none). */
export const latencyRow = (scenario: string, f: { p50Ms: number; p95Ms: number }, targetMs: number | null): Row => ({
  scenario,
  metric: 'p95',
  unit: 'ms',
  product: f.p95Ms,
  baseline: f.p50Ms,
  baselineLabel: 'p50',
  ratio: f.p95Ms / f.p50Ms,
  target: targetMs === null ? '' : `< ${targetMs} ms`,
  met: targetMs === null ? null : f.p95Ms < targetMs,
});

const fmt = (n: number | null, unit = ''): string => {
  if (n === null) return '-';
  const v = Number.isInteger(n) ? String(n) : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
  return unit ? `${v} ${unit}` : v;
};

export function printTable(rows: Row[]): string {
  const header = ['scenario', 'metric', 'product', 'baseline', 'ratio', 'target', 'met?'];
  const lines = rows.map((r) => [
    r.scenario,
    r.metric,
    fmt(r.product, r.unit),
    r.baseline === null ? '-' : `${fmt(r.baseline, r.unit)} (${r.baselineLabel})`,
    r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(0)}%`,
    r.target || '-',
    r.met === null ? '-' : r.met ? 'yes' : 'NO',
  ]);
  const all = [header, ...lines];
  const widths = header.map((_, c) => Math.max(...all.map((l) => l[c].length)));
  const out = all.map((l) => `| ${l.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`);
  out.splice(1, 0, `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  return out.join('\n');
}
