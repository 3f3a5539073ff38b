import { parentPort } from 'node:worker_threads';
import type { FormatDone, FormatJob } from './format-ahead.js';
import { prettierFormat } from './format.js';

/**
 * The formatting thread of format-ahead.ts: prettier over each file it is sent, one at a time and in order (one
 * syntax tree alive at a time), answering with the text or the error.
 */
const port = parentPort;
if (port === null) throw new Error('format-worker.js runs as a worker thread (format-ahead.ts)');
const prettier = import('prettier');
let queue: Promise<void> = Promise.resolve();
port.on('message', (job: FormatJob) => {
  queue = queue.then(async () => {
    let done: FormatDone;
    try {
      done = { id: job.id, contents: await prettierFormat(await prettier, job.path, job.contents) };
    } catch (e) {
      done = { id: job.id, error: (e as Error).message };
    }
    port.postMessage(done);
  });
});
