/**
 * Stage 7, write: the only stage that touches the output directory — a lock, a staged set, a commit journal,
 * and the manifest last, so no reader ever sees a half-written set.
 */
export { lockOutput, markThreadGone } from './out-lock.js';
export { commitPending } from './journal.js';
export { openOutput, type OpenOutput } from './open-output.js';
export { diffOutput, listFiles, loadableForeignFiles, outputIntact, pathList } from './output-files.js';
export { manifestFile, write, type WriteReport } from './write.js';
