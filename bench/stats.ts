/** The statistics every bench reports: runs are few (3–7) and noisy, so the median, never the mean. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
