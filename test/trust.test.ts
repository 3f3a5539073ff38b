import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cacheArea, readEntry, writeEntry } from '../runtime/artifacts/user-cache.js';
import { buildCache, sha256 } from '../generator/shared/index.js';
import { recordUnits, reusable } from '../generator/previous-set.js';
import { loadableForeignFiles } from '../generator/write/index.js';
import { runCli } from './helpers/cli.js';
import { codeCachePayload, foreignCachedData, rootPack } from './helpers/code-cache-plant.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';

/**
 * Issue 20, points 1-3: what someone who can commit to an agent's repository (where reviewers skip `generated/`
 * diffs), or plant a cache, could make the runtime or the generator run. Each attack is performed as it was done
 * against the earlier design, on a real git clone of an agent repository, and each must fail:
 * - a code cache entry committed under `generated/.cache/v8/` with the genuine module text and bytecode of other code
 *   of the same length, replacing the create_media_buy validator on every clone;
 * - a generated validator edited together with its hash in `manifest.json` (`--check` passed, and a regeneration
 *   "reused" the edited file);
 * - a module planted at `generated/node_modules/@modelcontextprotocol/sdk/…`, which ran at registerMcp;
 * - build cache entries planted in `node_modules/.cache/adcp-codegen` (as a restored CI cache would be), or
 *   forged in this user's private cache without its key: a capabilities validator that ran with the generator's
 *   own `require` and accepted anything, and prettier output that injected code into a validator entry.
 */

const VALIDATOR = 'releases/3.0/validate.cjs';
/** Appended to the validators module: create_media_buy's validators then accept anything. */
const ACCEPT_ALL = 'tools.create_media_buy = { request: () => true, response: () => true, responseAsync: {} };\n';

/**
 * The agent's own repository: the example guaranteed-publisher profile over 3.0.6, its MCP SDK installed. Every
 * clone sits at the same depth (`<temp>/<dir>/agent`): the release lies outside the repository, and the input hash
 * names it by its path from the working directory.
 */
const origin = join(tempDir('adcp-trust-origin-'), 'agent');
mkdirSync(origin);
cpSync(join(repoRoot, 'schemas'), join(origin, 'schemas'), { recursive: true });
writeFileSync(join(origin, 'package.json'), JSON.stringify({ name: 'agent', private: true, type: 'module' }));
writeFileSync(join(origin, '.gitignore'), 'node_modules\n');
writeFileSync(
  join(origin, 'adcp-codegen.config.json'),
  JSON.stringify({
    releases: [sdkReleaseDir()],
    profiles: ['schemas/profiles/guaranteed-publisher.json'],
    normalizations: ['schemas/normalizations/*.json'],
    overlays: ['schemas/overlays/*.json'],
    out: 'generated',
  }),
);
symlinkSync(join(repoRoot, 'node_modules'), join(origin, 'node_modules'), 'dir');

/** The agent developer's private cache; each other machine (a teammate, CI) starts with an empty one of its own. */
const developer = join(tempDir('adcp-trust-developer-'), 'cache');
const otherMachine = (): string => join(tempDir('adcp-trust-machine-'), 'cache');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', '-c', 'core.hooksPath=/dev/null', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `adcp-codegen generate …` in `cwd` as the user whose private cache is `cache`. */
async function generateAs(cache: string, cwd: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  const before = process.env.ADCP_CODEGEN_CACHE_DIR;
  process.env.ADCP_CODEGEN_CACHE_DIR = cache;
  try {
    return await runCli(['generate', ...args], cwd);
  } finally {
    process.env.ADCP_CODEGEN_CACHE_DIR = before;
  }
}

/** A fresh clone of the agent's repository at `ref`, its dependencies installed (the SDK: a link to ours). */
function clone(ref: string): string {
  const dir = join(tempDir('adcp-trust-clone-'), 'agent');
  git(dirname(dir), 'clone', '-q', origin, dir);
  git(dir, 'checkout', '-q', ref);
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** A change the attacker commits on a branch of the origin: edits under `generated/`, committed with force. */
function commitAttack(branch: string, edit: (out: string) => void): void {
  git(origin, 'checkout', '-q', '-b', branch, 'main');
  edit(join(origin, 'generated'));
  git(origin, 'add', '-A', '-f', 'generated');
  git(origin, 'commit', '-q', '-m', branch);
  git(origin, 'checkout', '-q', 'main');
}

/** Sets a generated file's text and its hash line in manifest.json, as the attacker's commit does. */
function rewriteWithHash(out: string, path: string, text: string): void {
  writeFileSync(join(out, path), text);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { files: Record<string, string> };
  manifest.files[path] = sha256(text);
  writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}

/** What create_media_buy's validation says in a new process over `agent`'s set (a valid, then an empty payload). */
function validates(agent: string, cache: string, out = 'generated'): string {
  const script = [
    `const { loadProfile } = await import(${JSON.stringify(pathToFileURL(join(agent, out, 'index.js')).href)});`,
    `const agent = await loadProfile('guaranteed-publisher');`,
    `const v = (args) => agent.validateRequest('create_media_buy', args).ok;`,
    `process.stdout.write(JSON.stringify([v(${JSON.stringify(createMediaBuyRequest())}), v({})]));`,
  ].join('\n');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ADCP_CODEGEN_CACHE_DIR: cache }, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
}

/** The entry name and layout the earlier runtime (code cache in `<out>/.cache/v8/`) gave a module of the set in `out`. */
function earlierEntryName(out: string, file: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < out.length; i++) h = Math.imul(h ^ out.charCodeAt(i), 0x01000193);
  const runtimeKey = `w4-${process.version}-${process.arch}-v8_${process.versions.v8}`.replace(/[^A-Za-z0-9_.-]/g, '_');
  return `${relative(out, file).replace(/[^A-Za-z0-9_.-]/g, '~')}-${(h >>> 0).toString(16).padStart(8, '0')}-${runtimeKey}.v8`;
}

test('setup: the developer generates the set and commits it', async () => {
  git(origin, 'init', '-q');
  const run = await generateAs(developer, origin);
  assert.is(run.code, 0, run.stderr);
  git(origin, 'add', '-A');
  git(origin, 'commit', '-q', '-m', 'agent with its generated set');
  assert.is(validates(origin, developer), '[true,false]');
});

test('a committed code cache for the create_media_buy validator: never read on a clone; --check names it; generate removes it', async () => {
  // The attacker knows where the victim clones (CI runners use fixed paths): here, the path of the clone below.
  const victim = join(tempDir('adcp-trust-victim-'), 'agent');
  commitAttack('code-cache', (out) => {
    const pack = rootPack(join(out, VALIDATOR), 'create_media_buy');
    const victimOut = join(victim, 'generated');
    const name = earlierEntryName(victimOut, join(victimOut, relative(out, pack.file)));
    mkdirSync(join(out, '.cache', 'v8'), { recursive: true });
    writeFileSync(join(out, '.cache', '.gitignore'), '*\n');
    // One binary file: the genuine text (what the earlier loader compared) and bytecode of other code, as long.
    writeFileSync(join(out, '.cache', 'v8', name), codeCachePayload(pack.text, foreignCachedData(pack)));
  });
  git(dirname(victim), 'clone', '-q', '-b', 'code-cache', origin, victim);
  symlinkSync(join(repoRoot, 'node_modules'), join(victim, 'node_modules'), 'dir');
  const planted = readdirSync(join(victim, 'generated', '.cache', 'v8'));
  assert.is(planted.length, 1, 'the clone carries the planted entry');

  const ci = otherMachine();
  assert.is(validates(victim, ci), '[true,false]', 'validation stays on: the runtime never reads the set\'s tree for compiled code');
  assert.is(validates(victim, ci), '[true,false]', 'and with its own code cache warm');
  assert.equal(readdirSync(join(victim, 'generated', '.cache', 'v8')), planted, 'the runtime writes nothing into the set');

  const check = await generateAs(ci, victim, '--check');
  assert.is(check.code, 1, check.stderr);
  assert.ok(check.stderr.includes(`.cache/v8/${planted[0]!} (not generated, and Node or the runtime could load it`), check.stderr);
  assert.ok(check.stderr.includes('.cache/.gitignore'), check.stderr);

  const regenerate = await generateAs(ci, victim);
  assert.is(regenerate.code, 0, regenerate.stderr);
  assert.match(regenerate.stderr, /removed 1 V8 code cache file\(s\) from \.cache\/v8/);
  assert.not.ok(existsSync(join(victim, 'generated', '.cache')), 'the former cache directory is gone');
  assert.is((await generateAs(ci, victim, '--check')).code, 0);
});

test('a validator edited together with its manifest hash: --check (cache off) names it; regenerating restores it', async () => {
  const genuine = readFileSync(join(origin, 'generated', VALIDATOR), 'utf8');
  commitAttack('edited-validator', (out) => rewriteWithHash(out, VALIDATOR, `${genuine}${ACCEPT_ALL}`));

  // CI: a fresh machine, and every build cache off.
  const ci = clone('edited-validator');
  assert.is(validates(ci, otherMachine()), '[true,true]', 'the edit is real: the committed set accepts anything');
  process.env.ADCP_CODEGEN_NO_CACHE = '1';
  try {
    const check = await generateAs(otherMachine(), ci, '--check');
    assert.is(check.code, 1, check.stderr);
    assert.ok(check.stderr.includes(`\n  ${VALIDATOR}\n`), check.stderr);
    assert.ok(check.stderr.includes('\n  manifest.json'), check.stderr);
  } finally {
    delete process.env.ADCP_CODEGEN_NO_CACHE;
  }
  // The developer's own checkout (its private cache vouches for every unit it compiled): the edit is not "up to
  // date", and the one unit holding the edited file is compiled again.
  const dev = clone('edited-validator');
  let run = await generateAs(developer, dev);
  assert.is(run.code, 0, run.stderr);
  assert.not.match(run.stderr, /up to date/);
  assert.match(run.stderr, /1 unit\(s\) compiled, 3 reused from generated \(3\.0\/strip, 3\.0\/normalize, 3\.0\/types\)/);
  assert.is(readFileSync(join(dev, 'generated', VALIDATOR), 'utf8'), genuine);
  assert.is(validates(dev, developer), '[true,false]');

  // After a real capability edit (which once reused every unit, the edited file with them).
  const edited = clone('edited-validator');
  const profile = join(edited, 'schemas/profiles/guaranteed-publisher.json');
  const p = JSON.parse(readFileSync(profile, 'utf8')) as { capabilities: { media_buy: { supported_pricing_models: string[] } } };
  p.capabilities.media_buy.supported_pricing_models = ['cpm'];
  writeFileSync(profile, JSON.stringify(p, null, 2));
  run = await generateAs(developer, edited);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /1 unit\(s\) compiled, 3 reused/);
  assert.not.match(run.stderr, /reused from generated \([^)]*validate/);
  assert.is(readFileSync(join(edited, 'generated', VALIDATOR), 'utf8'), genuine);
  // On a machine whose cache vouches for nothing (a clone's first run), every unit is compiled.
  const fresh = clone('edited-validator');
  run = await generateAs(otherMachine(), fresh);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /; 4 unit\(s\) compiled \(/);
  assert.is(readFileSync(join(fresh, 'generated', VALIDATOR), 'utf8'), genuine);
});

test('an MCP SDK planted in generated/node_modules: registerMcp never runs it; --check names it', async () => {
  const marker = join(tempDir('adcp-trust-marker-'), 'ran');
  commitAttack('shadow-sdk', (out) => {
    const sdk = join(out, 'node_modules', '@modelcontextprotocol', 'sdk');
    mkdirSync(sdk, { recursive: true });
    writeFileSync(join(sdk, 'package.json'), JSON.stringify({ name: '@modelcontextprotocol/sdk', version: '1.99.0' }));
    // Quiet: it does its work and hands back the real SDK's types, so registerMcp would go on as usual.
    const real = join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/cjs/types.js');
    writeFileSync(join(sdk, 'types.js'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\nmodule.exports = require(${JSON.stringify(real)});\n`);
  });
  const agent = clone('shadow-sdk');
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const set = (await import(pathToFileURL(join(agent, 'generated/index.js')).href)) as { loadProfile(name: string): Promise<{ registerMcp(s: unknown, h: object): void; tools(): string[] }> };
  const profile = await set.loadProfile('guaranteed-publisher');
  const server = new McpServer({ name: 'seller', version: '1.0.0' });
  const handlers = Object.fromEntries(profile.tools().map((t) => [t, () => ({})]));
  profile.registerMcp(server, handlers);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'buyer', version: '1.0.0' });
  await client.connect(clientSide);
  assert.equal((await client.listTools()).tools.map((t) => t.name), profile.tools(), 'served with the agent\'s own SDK');
  await client.close();
  assert.not.ok(existsSync(marker), 'the planted module never ran');

  const check = await generateAs(otherMachine(), agent, '--check');
  assert.is(check.code, 1, check.stderr);
  for (const f of ['node_modules/@modelcontextprotocol/sdk/package.json', 'node_modules/@modelcontextprotocol/sdk/types.js']) assert.ok(check.stderr.includes(`\n  ${f} (not generated`), check.stderr);
  assert.is(check.stderr.match(/\n {2}\S/g)?.length, 2, `nothing else is out of step: ${check.stderr}`);
});

test('build cache: planted capabilities-validator and prettier entries are never run or copied', async () => {
  // An agent directory whose node_modules is its own (a restored CI cache lands there), the SDK linked in.
  const agent = join(tempDir('adcp-trust-build-cache-'), 'agent');
  for (const f of ['schemas', 'package.json', 'adcp-codegen.config.json']) cpSync(join(origin, f), join(agent, f), { recursive: true });
  mkdirSync(join(agent, 'node_modules'));
  symlinkSync(join(repoRoot, 'node_modules/@modelcontextprotocol'), join(agent, 'node_modules/@modelcontextprotocol'), 'dir');
  const cache = otherMachine();
  let run = await generateAs(cache, agent);
  assert.is(run.code, 0, run.stderr);
  const genuine = readFileSync(join(agent, 'generated', VALIDATOR), 'utf8');

  /** Plants `text` as entry `key` of `area`: where the earlier build cache read it, and in the private cache, forged. */
  const plant = (area: 'capabilities' | 'prettier', key: string, text: string): void => {
    const old = join(agent, 'node_modules/.cache/adcp-codegen', area, key.slice(0, 2));
    mkdirSync(old, { recursive: true, mode: 0o700 });
    writeFileSync(join(old, key), `${sha256(text)}\n${text}`, { mode: 0o600 });
    assert.ok(writeEntry({ dir: join(cache, area), key: randomBytes(32) }, key, [Buffer.from(text)]));
  };
  /** The private cache's entries of `area`, as this user's generator wrote them. */
  const entries = (area: 'capabilities' | 'prettier'): [string, string][] => {
    const before = process.env.ADCP_CODEGEN_CACHE_DIR;
    process.env.ADCP_CODEGEN_CACHE_DIR = cache;
    try {
      const a = cacheArea(area)!;
      return readdirSync(a.dir).map((name) => [name, readEntry(a, name)!.toString('utf8')]);
    } finally {
      process.env.ADCP_CODEGEN_CACHE_DIR = before;
    }
  };

  // The capabilities validator: code that writes a file and accepts anything.
  const marker = join(tempDir('adcp-trust-marker-'), 'ran');
  const [[capKey]] = entries('capabilities') as [[string, string]];
  plant('capabilities', capKey, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\nmodule.exports = Object.assign(() => true, { errors: null });\n`);
  const profile = join(agent, 'schemas/profiles/guaranteed-publisher.json');
  const p = JSON.parse(readFileSync(profile, 'utf8')) as { capabilities: { adcp: { major_versions: unknown } } };
  p.capabilities.adcp.major_versions = 'three';
  writeFileSync(profile, JSON.stringify(p, null, 2));
  run = await generateAs(cache, agent);
  assert.is(run.code, 1, run.stderr);
  assert.match(run.stderr, /guaranteed-publisher\.json#\/capabilities\/adcp\/major_versions: /);
  assert.not.ok(existsSync(marker), 'the planted validator never ran');
  cpSync(join(origin, 'schemas/profiles/guaranteed-publisher.json'), profile);

  // Prettier's output for the create_media_buy validator entry: code that accepts anything.
  const [prettierKey] = entries('prettier').find(([, text]) => text === genuine)!;
  plant('prettier', prettierKey, `${genuine}${ACCEPT_ALL}`);
  run = await generateAs(cache, agent, '--out', 'generated-again');
  assert.is(run.code, 0, run.stderr);
  assert.is(readFileSync(join(agent, 'generated-again', VALIDATOR), 'utf8'), genuine, 'formatted by prettier, not taken from the planted entries');
  assert.is(validates(agent, cache, 'generated-again'), '[true,false]');

  // A private cache restored together with its key (a CI job caching it between runs) is trusted by generate, as
  // docs/output.md says; --check reads no cache at all, and catches what it let in.
  const writeAuthentic = (): void => {
    const before = process.env.ADCP_CODEGEN_CACHE_DIR;
    process.env.ADCP_CODEGEN_CACHE_DIR = cache;
    try {
      writeEntry(cacheArea('prettier')!, prettierKey, [Buffer.from(`${genuine}${ACCEPT_ALL}`)]);
    } finally {
      process.env.ADCP_CODEGEN_CACHE_DIR = before;
    }
  };
  writeAuthentic();
  run = await generateAs(cache, agent, '--out', 'generated-restored');
  assert.is(run.code, 0, run.stderr);
  assert.is.not(readFileSync(join(agent, 'generated-restored', VALIDATOR), 'utf8'), genuine, 'the entry has the key: generate takes it');
  run = await generateAs(cache, agent, '--check', '--out', 'generated-restored');
  assert.is(run.code, 1, run.stderr);
  assert.ok(run.stderr.includes(`\n  ${VALIDATOR}\n`), run.stderr);
});

test('what --check counts as loadable: node_modules, caches, package.json, code and JSON files, links; never the set\'s own', () => {
  const out = tempDir('adcp-trust-loadable-');
  const files: Record<string, string> = {
    'index.js': 'owned',
    'manifest.json': 'owned',
    'releases/3.0/validate/x.cjs': 'owned',
    'README.md': 'inert',
    'notes/todo.txt': 'inert',
    'node_modules/@modelcontextprotocol/sdk/types.js': 'x',
    'node_modules/left-pad/LICENSE': 'x',
    'releases/3.0/node_modules/ajv/index.js': 'x',
    '.cache/v8/a.v8': 'x',
    'runtime/package.json': '{"type":"commonjs"}',
    'releases/3.0/validate/extra.cjs': 'x',
    'validate/packs/evil.mjs': 'x',
    'profiles/extra.json': '{}',
    'addon.node': 'x',
    'mod.wasm': 'x',
    'types/extra.d.ts': 'x',
    '.adcp-codegen/commit.json': '{}',
    '.adcp-codegen/lock': 'pid',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), text);
  }
  symlinkSync('/etc', join(out, 'releases', 'linked'));
  const owned = new Set(Object.keys(files).filter((p) => files[p] === 'owned'));
  assert.equal(loadableForeignFiles(out, owned), [
    '.adcp-codegen/commit.json',
    '.cache/v8/a.v8',
    'addon.node',
    'mod.wasm',
    'node_modules/@modelcontextprotocol/sdk/types.js',
    'node_modules/left-pad/LICENSE',
    'profiles/extra.json',
    'releases/3.0/node_modules/ajv/index.js',
    'releases/3.0/validate/extra.cjs',
    'releases/linked (a symbolic link)',
    'runtime/package.json',
    'types/extra.d.ts',
    'validate/packs/evil.mjs',
  ]);
});

test('reuse reads only regular files of the set: a unit file committed as a link to /dev/zero (or a pipe) is compiled again, never read', () => {
  const out = tempDir('adcp-trust-reuse-');
  const store = join(tempDir('adcp-trust-reuse-store-'), 'cache');
  const before = process.env.ADCP_CODEGEN_CACHE_DIR;
  process.env.ADCP_CODEGEN_CACHE_DIR = store;
  try {
    const cache = buildCache();
    const files = [{ path: 'a.cjs', contents: 'exports.a = 1;\n', inputs: [] }, { path: 'b.cjs', contents: 'exports.b = 2;\n', inputs: [] }];
    recordUnits(cache, [{ id: 'unit', key: 'k1', files, reused: false }], files);
    for (const f of files) writeFileSync(join(out, f.path), f.contents);
    assert.equal(reusable(out, 'k1', cache)?.map((f) => f.contents), files.map((f) => f.contents), 'recorded and intact: reused');
    assert.is(reusable(out, 'k2', cache), undefined, 'no record of this key');
    writeFileSync(join(out, 'b.cjs'), 'exports.b = () => true;\n');
    assert.is(reusable(out, 'k1', cache), undefined, 'an edited file');
    rmSync(join(out, 'b.cjs'));
    symlinkSync('/dev/zero', join(out, 'b.cjs'));
    assert.is(reusable(out, 'k1', cache), undefined, 'a link to /dev/zero');
    rmSync(join(out, 'b.cjs'));
    execFileSync('mkfifo', [join(out, 'b.cjs')]);
    assert.is(reusable(out, 'k1', cache), undefined, 'a pipe (and the run did not block on it)');
  } finally {
    process.env.ADCP_CODEGEN_CACHE_DIR = before;
  }
});

test.run();
