/**
 * The runtime reports operational faults to the agent's log — a handler that threw, an agent served without
 * authentication, a webhook given up on: by default pino's JSON lines on stderr (`npm test` runs at
 * ADCP_LOG_LEVEL=warn), or `process.emitWarning` where nothing else is there (a service made alone, pino absent). A
 * test file that provokes them on purpose says which it expects:
 *
 *   expectWarnings(/served without authentication/, /handler for list_creatives failed/);
 *
 * Those are captured instead of printed (a log line by its `msg`, a warning by its text), so `npm test` prints
 * nothing a reader must learn to ignore, and each must have been reported by the time the file's run ends (else the
 * run fails, naming it): provoking it is part of what the file tests. Anything else is printed as it would be.
 */
const expected: { pattern: RegExp; seen: number }[] = [];
let installed = false;

export function expectWarnings(...patterns: RegExp[]): void {
  install();
  for (const pattern of patterns) expected.push({ pattern, seen: 0 });
}

/** How many captured warnings matched `pattern` so far (for a test that asserts on one at a given moment). */
export function warningsSeen(pattern: RegExp): number {
  return expected.filter((e) => e.pattern.source === pattern.source && e.pattern.flags === pattern.flags).reduce((n, e) => n + e.seen, 0);
}

function install(): void {
  if (installed) return;
  installed = true;
  // Node's own printer is the one 'warning' listener a process starts with: kept for what nobody expects.
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const text = `${warning.name}: ${warning.message}`;
    // Every expectation it matches is met: the runtime says some things once per process (an agent served without
    // authentication), whichever of the files that expect it comes first.
    const matches = expected.filter((e) => e.pattern.test(text));
    for (const match of matches) match.seen += 1;
    if (matches.length === 0) for (const print of printers) print.call(process, warning);
  });
  // The default logger's lines: pino writes each whole, one line per write, to process.stderr.
  const write = process.stderr.write.bind(process.stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const message = typeof chunk === 'string' && chunk.startsWith('{"level":') ? logMessage(chunk) : undefined;
    if (message !== undefined) {
      const matches = expected.filter((e) => e.pattern.test(message));
      for (const match of matches) match.seen += 1;
      if (matches.length > 0) {
        const done = rest.find((r): r is () => void => typeof r === 'function');
        done?.();
        return true;
      }
    }
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  process.on('exit', () => {
    const unseen = expected.filter((e) => e.seen === 0);
    if (unseen.length === 0) return;
    process.stderr.write(`expected warning(s) never emitted: ${unseen.map((e) => String(e.pattern)).join(', ')}\n`);
    process.exitCode = 1;
  });
}

/** A log line's message, or undefined when it is not one. */
function logMessage(line: string): string | undefined {
  try {
    const v = JSON.parse(line) as { msg?: unknown };
    return typeof v.msg === 'string' ? v.msg : undefined;
  } catch {
    return undefined;
  }
}
