import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from './helpers/releases.js';

/**
 * The default logger's buffering (runtime/ops/log.ts, pinoLogger), in a process of its own whose writes to fd 2 are
 * recorded instead of made: call lines wait in the destination's batch (no write for them alone), any other line takes the
 * waiting ones out with it at once, a call line alone is written within the destination's periodic flush, and what is
 * still waiting when the process exits is written by the log's exit hook — nothing is lost.
 */
const script = `
import fs from 'node:fs';
const writes = [];
const write = fs.write;
fs.write = (fd, data, ...rest) => {
  if (fd !== 2) return write(fd, data, ...rest);
  writes.push(String(data));
  process.nextTick(rest.find((r) => typeof r === 'function'), null, Buffer.byteLength(String(data)));
};
const writeSync = fs.writeSync;
fs.writeSync = (fd, data, ...rest) => {
  if (fd !== 2) return writeSync(fd, data, ...rest);
  writes.push(String(data));
  return Buffer.byteLength(String(data));
};
const { default: pino } = await import('pino');
const { pinoLogger } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/runtime/ops/log.js')).href)});
const log = pinoLogger(pino, 'info', 'buffering-agent');
const messages = () => writes.join('').split('\\n').filter((l) => l !== '').map((l) => JSON.parse(l).msg);
const seen = {};
log.info({ event: 'call', tool: 'get_products' }, 'call one');
log.info({ event: 'call', tool: 'get_products' }, 'call two');
seen.calls = messages();
log.warn({ event: 'handler_failed' }, 'a handler failed');
seen.warning = messages();
log.info({ event: 'call', tool: 'get_products' }, 'call three');
await new Promise((r) => setTimeout(r, 300));
seen.later = messages();
log.info({ event: 'call', tool: 'get_products' }, 'call four');
// After the log's exit hook (registered when the destination was made): what the process wrote in the end.
process.on('exit', () => {
  seen.exit = messages();
  writeSync(1, JSON.stringify(seen));
});
`;

test('call lines are buffered, other lines go at once with them, a lone call line within the periodic flush, the rest at exit', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const seen = JSON.parse(r.stdout) as Record<string, string[]>;
  assert.equal(seen.calls, [], 'two call lines: no write yet');
  assert.equal(seen.warning, ['call one', 'call two', 'a handler failed'], 'a warning is written at once, the waiting call lines with it');
  assert.equal(seen.later, ['call one', 'call two', 'a handler failed', 'call three'], 'a call line alone is written within the periodic flush');
  assert.equal(seen.exit, ['call one', 'call two', 'a handler failed', 'call three', 'call four'], "the last call line, by the log's exit hook");
});

test.run();
