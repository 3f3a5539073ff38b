import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { packRepository } from './helpers/pack.js';
import { readmeFiles } from './helpers/readme.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The README's TypeScript agent, checked where npm test can without ../shared: every fenced block whose info string
 * names a file (```ts src/server.ts) makes a complete agent repository, its package.json installs adcp-codegen from
 * the tarball `npm pack` makes of this repository (the README's install route before a release exists), and that
 * tarball holds what generating and running need. test/real/readme.test.ts runs the agent itself (it serves AdCP
 * 3.2.0-beta.5, which only ../shared has).
 */
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const files = readmeFiles(readme);
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

test('the README names a complete agent layout, compiled strict and NodeNext, src/ only', () => {
  for (const f of ['package.json', 'tsconfig.json', 'adcp-codegen.config.json', 'profiles/my-seller.json', 'src/server.ts']) assert.type(files[f], 'string', `README block for ${f}`);
  const tsconfig = JSON.parse(files['tsconfig.json']!) as { compilerOptions: Record<string, unknown>; include: string[] };
  assert.equal(tsconfig.include, ['src'], 'tsc compiles src/ only, never generated/');
  assert.is(tsconfig.compilerOptions.strict, true);
  assert.is(tsconfig.compilerOptions.module, 'NodeNext');
  const config = JSON.parse(files['adcp-codegen.config.json']!) as { releases: string[] };
  assert.equal(config.releases, ['@adcp/sdk', 'vendor/adcp/3.2.0-beta.5'], 'the agent serves 3.0.6 and 3.2.0-beta.5');
});

test("the README installs adcp-codegen from this repository's packed tarball, and says how to make it", () => {
  const pkg = JSON.parse(files['package.json']!) as { devDependencies: Record<string, string> };
  const tarball = `adcp-codegen-${version}.tgz`;
  assert.is(pkg.devDependencies['adcp-codegen'], `file:vendor/${tarball}`);
  assert.ok(readme.includes('npm ci && npm pack'), 'the README says how the tarball is made');
  assert.ok(readme.includes(`npm install --save-dev ./vendor/${tarball}`), 'and how it is installed');
});

test('the packed tarball holds what generating and serving need: the CLI, the compiled generator and runtime, schemas, templates', () => {
  const packed = packRepository(true);
  assert.is(packed.filename, `adcp-codegen-${version}.tgz`);
  const has = new Set(packed.files);
  for (const f of ['bin/adcp-codegen.js', 'dist/generator/index.js', 'dist/generator/cli.js', 'dist/runtime/agent.js', 'dist/runtime-bundle.json', 'schemas/config.schema.json', 'schemas/conversion.schema.json', 'schemas/conversions/3.2-3.0.json', 'schemas/normalizations/brand.json', 'templates/index.d.ts.hbs', 'README.md']) {
    assert.ok(has.has(f), `${f} is packed`);
  }
  assert.not.ok(packed.files.some((f) => f.startsWith('dist/test/') || f.startsWith('test/') || f.startsWith('generated/')), 'no tests or generated set');
});

test.run();
