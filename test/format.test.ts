import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileTypes } from '../generator/compile/index.js';
import { format, FormatAhead } from '../generator/format/index.js';
import { loadRelease, type EmittedFile } from '../generator/load/index.js';
import { MIN_WORKER_HEAP_MB, type BuildCache } from '../generator/shared/index.js';
import { sdkReleaseDir } from './helpers/releases.js';

// A fresh, empty build cache per run: every file is formatted, here or on the thread.
const fresh = (): BuildCache => {
  const entries = new Map<string, string>();
  return { get: (area, key) => entries.get(`${area}/${key}`), set: (area, key, contents) => void entries.set(`${area}/${key}`, contents) };
};

// Real input: the 3.0.6 types of a few tools (unindented json-schema-to-typescript output), a normalizer-like
// module, and a file the format stage leaves alone.
const release = loadRelease(sdkReleaseDir());
const types = await compileTypes(release, ['create_media_buy', 'get_products', 'list_creative_formats']);
const files: EmittedFile[] = [
  ...types,
  { path: 'releases/3.0/normalize/x.cjs', contents: "'use strict';\nexports.normalize = function (v) { return { value: v, applied: [] } }\n", inputs: [] },
  { path: 'validate/packs/x.cjs', contents: 'exports.a=1;', inputs: [], verbatim: true },
];

test('formatting ahead, on its own thread, gives the format stage\'s bytes exactly', async () => {
  const here = await format(files, fresh());
  const cache = fresh();
  const ahead = new FormatAhead(cache);
  try {
    ahead.submit(files);
    assert.ok(ahead.get(files[0]!) !== undefined, 'the types were submitted');
    assert.is(ahead.get(files[files.length - 1]!), undefined, 'a verbatim file is not formatted');
    assert.is(ahead.get({ ...files[0]!, contents: `${files[0]!.contents} ` }), undefined, 'only for exactly the submitted text');
    const there = await format(files, cache, ahead);
    assert.equal(there.map((f) => [f.path, f.contents]), here.map((f) => [f.path, f.contents]));
    assert.ok(here.some((f, i) => f.contents !== files[i]!.contents), 'formatting changed something');
  } finally {
    await ahead.close();
  }
});

test('a formatting thread that runs out of memory leaves its files to the format stage: same bytes, no failure', async () => {
  const here = await format(files, fresh());
  const cache = fresh();
  const ahead = new FormatAhead(cache, MIN_WORKER_HEAP_MB); // the least a worker is given: prettier cannot load in it
  try {
    ahead.submit(files);
    const answered = await ahead.get(files[0]!)?.text;
    assert.is(answered, undefined, 'given up, not failed');
    const there = await format(files, cache, ahead);
    assert.equal(there.map((f) => f.contents), here.map((f) => f.contents));
  } finally {
    await ahead.close();
  }
});

test('emitted code that does not parse is a generator bug, reported from the thread as from the stage', async () => {
  const broken: EmittedFile = { path: 'releases/3.0/normalize/broken.cjs', contents: 'exports.normalize = function (', inputs: [] };
  const cache = fresh();
  const ahead = new FormatAhead(cache);
  try {
    ahead.submit([broken]);
    try {
      await format([broken], cache, ahead);
      assert.unreachable('should have thrown');
    } catch (e) {
      assert.match((e as Error).message, /adcp-codegen bug: emitted releases\/3\.0\/normalize\/broken\.cjs does not parse/);
    }
  } finally {
    await ahead.close();
  }
});

test.run();
