/**
 * The runtime reports operational faults through `process.emitWarning` — a handler that threw, an agent served
 * without authentication, a webhook given up on. A test file that provokes them on purpose says which it expects:
 *
 *   expectWarnings(/served without authentication/, /handler for list_creatives failed/);
 *
 * Those are captured instead of printed, so `npm test` prints nothing a reader must learn to ignore, and each must
 * have been emitted by the time the file's run ends (else the run fails, naming it): provoking it is part of what the
 * file tests. Any other warning is printed as Node prints it.
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
  process.on('exit', () => {
    const unseen = expected.filter((e) => e.seen === 0);
    if (unseen.length === 0) return;
    process.stderr.write(`expected warning(s) never emitted: ${unseen.map((e) => String(e.pattern)).join(', ')}\n`);
    process.exitCode = 1;
  });
}
