import fs from 'node:fs';

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
  // The default logger's lines: pino's destination (sonic-boom) writes them to fd 2 with fs.write, several whole lines
  // at a time, and with fs.writeSync when the process exits. Each write is passed on without the expected lines, and
  // reported whole to the writer (what it wrote is what it asked, as far as it can tell).
  const write = fs.write;
  const writeSync = fs.writeSync;
  (fs as { write: unknown }).write = (fd: number, data: unknown, ...rest: unknown[]) => {
    const kept = fd === 2 && typeof data === 'string' ? unexpected(data) : data;
    if (kept === data) return (write as (...args: unknown[]) => void)(fd, data, ...rest);
    const done = rest.find((r): r is (e: Error | null, n: number) => void => typeof r === 'function')!;
    const all = Buffer.byteLength(data as string);
    if (kept === '') return void process.nextTick(done, null, all);
    write(fd, kept as string, (e) => done(e, all));
  };
  (fs as { writeSync: unknown }).writeSync = (fd: number, data: unknown, ...rest: unknown[]) => {
    const kept = fd === 2 && typeof data === 'string' ? unexpected(data) : data;
    if (kept === data) return (writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
    if (kept !== '') writeSync(fd, kept as string);
    return Buffer.byteLength(data as string);
  };
  process.on('exit', () => {
    const unseen = expected.filter((e) => e.seen === 0);
    if (unseen.length === 0) return;
    process.stderr.write(`expected warning(s) never emitted: ${unseen.map((e) => String(e.pattern)).join(', ')}\n`);
    process.exitCode = 1;
  });
}

/** The log lines of a write that no expectation matches (each one that matches is counted and left out). */
function unexpected(text: string): string {
  if (!text.includes('{"level":')) return text;
  const lines = text.split('\n');
  const kept = lines.filter((line) => {
    const message = line.startsWith('{"level":') ? logMessage(line) : undefined;
    if (message === undefined) return true;
    const matches = expected.filter((e) => e.pattern.test(message));
    for (const match of matches) match.seen += 1;
    return matches.length === 0;
  });
  return kept.length === lines.length ? text : kept.join('\n');
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
