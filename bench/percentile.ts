/** The p-th percentile of ascending `sorted` (NaN when empty): the benches' one definition. */
export function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
