/**
 * A numeric option a team may pass (a limit, a timeout, a bound): unset is its documented default; set, it must be a
 * positive number, or a positive integer where a fraction means nothing, else the start fails naming the option.
 */
export function positiveOption(value: number | undefined, fallback: number, name: string, kind: 'number' | 'integer' = 'number'): number {
  if (value === undefined) return fallback;
  const ok = typeof value === 'number' && (kind === 'integer' ? Number.isInteger(value) : Number.isFinite(value)) && value > 0;
  if (!ok) throw new Error(`adcp-codegen: ${name} must be a positive ${kind}, not ${JSON.stringify(value)}`);
  return value;
}
