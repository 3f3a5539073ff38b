/**
 * What a warning or an error the runtime writes may say of a fault or an address: the first line of an error's message
 * (a driver's stack and follow-on lines stay out of logs), and a URL's host alone (its path and query may carry a
 * buyer's token).
 */
export function firstLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String((e as Error | undefined)?.message ?? e);
  return text.split('\n')[0]!;
}

/** A thrown value as the agent's log has it: an error's stack (its message without one), never a throw of its own. */
export function faultText(e: unknown): string {
  try {
    return e instanceof Error ? (e.stack ?? e.message) : String(e);
  } catch {
    return 'a value that cannot be printed';
  }
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(unparseable URL)';
  }
}
