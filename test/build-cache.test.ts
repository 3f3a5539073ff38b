import { chmodSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readCache, writeCache, sha256 } from '../generator/shared/index.js';
import { tempDir } from './helpers/temp.js';

/**
 * The build cache holds code the generator runs (the capabilities validator) and text it copies into the output, so
 * an entry another local user could have written is never read, however well its hash matches.
 */
const key = sha256('an entry');

function fresh(): string {
  const dir = join(tempDir('adcp-build-cache-'), 'cache', 'area');
  writeCache(dir, key, 'module.exports = () => true;');
  return dir;
}

test('an entry this user wrote is read back; a torn one is not', () => {
  const dir = fresh();
  assert.is(readCache(dir, key), 'module.exports = () => true;');
  writeFileSync(join(dir, key.slice(0, 2), key), `${sha256('other')}\nmodule.exports = () => false;`, { mode: 0o600 });
  assert.is(readCache(dir, key), undefined, 'content that does not match its hash');
});

test('an entry others could write, or a link, is never read', () => {
  let dir = fresh();
  chmodSync(join(dir, key.slice(0, 2), key), 0o666);
  assert.is(readCache(dir, key), undefined, 'a world-writable file');
  dir = fresh();
  chmodSync(join(dir, key.slice(0, 2)), 0o777);
  assert.is(readCache(dir, key), undefined, 'a world-writable directory');
  dir = fresh();
  chmodSync(dir, 0o770);
  assert.is(readCache(dir, key), undefined, 'a group-writable area');
  dir = fresh();
  const sub = join(dir, key.slice(0, 2));
  const planted = join(sub, 'planted');
  writeFileSync(planted, `${sha256('x')}\nx`, { mode: 0o600 });
  const entry = join(sub, key);
  unlinkSync(entry);
  symlinkSync(planted, entry);
  assert.is(readCache(dir, key), undefined, 'a symbolic link');
});

test.run();
