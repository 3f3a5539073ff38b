import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileValidators, compileValidatorSets } from '../generator/compile/index.js';
import { loadRelease } from '../generator/load/index.js';
import { wrapValidator } from '../runtime/issues/issues.js';
import { writeEmitted } from './helpers/differential.js';
import { tinyRelease } from './helpers/fixture-release.js';
import { requestValidator } from './helpers/tool-validators.js';

/**
 * Validators of several releases (issue 12 point 1): a definition compiled to the same code in two releases is
 * emitted once, in packs shared by both; one that differs is emitted per release; each release validates by its own.
 */
const v1 = tinyRelease({}, '9.1.0');
// 9.2 tightens the request of make_thing (a new required field); core/thing.json is unchanged.
const v2 = tinyRelease(
  {
    'media-buy/make-thing-request.json': {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: '/schemas/9.2.0/media-buy/make-thing-request.json',
      type: 'object',
      properties: { thing: { $ref: '../core/thing.json' }, reason: { type: 'string' } },
      required: ['thing', 'reason'],
    },
  },
  '9.2.0',
);

test('identical definitions of two releases are emitted once; different ones per release; each release keeps its verdicts', () => {
  const r1 = loadRelease(v1);
  const r2 = loadRelease(v2);
  const joint = compileValidatorSets([{ release: r1 }, { release: r2 }]);
  const keys = joint.filter((f) => f.path.includes('/packs/')).flatMap((f) => [...f.contents.matchAll(/^define\(("[^"]+")/gm)].map((m) => JSON.parse(m[1]!) as string));
  assert.is(new Set(keys).size, keys.length, 'no definition emitted twice');
  assert.is(keys.filter((k) => k.startsWith('core.thing-')).length, 1, 'core/thing.json: one definition for both releases');
  assert.is(keys.filter((k) => k.startsWith('media-buy.make-thing-request-')).length, 2, 'make-thing-request differs: one per release');
  const separate = [r1, r2].flatMap((r) => compileValidators(r));
  const bytes = (files: { contents: string }[]) => files.reduce((n, f) => n + f.contents.length, 0);
  assert.ok(bytes(joint) < bytes(separate), `joint ${bytes(joint)} < separate ${bytes(separate)}`);
  assert.ok(joint.every((f) => f.path.startsWith('validate/') || f.path.startsWith('releases/')));
  // Deterministic.
  assert.equal(compileValidatorSets([{ release: r1 }, { release: r2 }]).map((f) => [f.path, f.contents]), joint.map((f) => [f.path, f.contents]));

  const dir = mkdtempSync(join(tmpdir(), 'adcp-validators-shared-'));
  try {
    writeEmitted(dir, joint);
    const validate = (key: string) => wrapValidator(requestValidator(dir, key, 'make_thing'));
    assert.is(validate('9.1')({ thing: { id: 't' } }).ok, true);
    assert.is(validate('9.2')({ thing: { id: 't' } }).ok, false, '9.2 requires a reason');
    assert.is(validate('9.2')({ thing: { id: 't' }, reason: 'r' }).ok, true);
    assert.is(validate('9.1')({ thing: { id: 't', extra: 1 } }).ok, false, 'the shared core/thing definition still applies');
    assert.is(validate('9.2')({ thing: {}, reason: 'r' }).ok, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(v1, { recursive: true, force: true });
    rmSync(v2, { recursive: true, force: true });
  }
});

test.run();
