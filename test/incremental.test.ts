import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type SkippedRule, reportSkippedRules } from '../generator/compile/index.js';
import { createLogger } from '../generator/shared/index.js';
import { listFiles } from '../generator/write/index.js';
import { runCli, snapshot } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-release.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';

/**
 * Incremental regeneration (compile units reused from the previous set by input key) must write exactly the bytes
 * a cold run writes. Each change below is regenerated in place, then generated again from nothing, with every build
 * cache off, into a fresh directory; the two sets must be byte-identical.
 */
const work = tempDir('adcp-codegen-incr-');
cpSync(join(repoRoot, 'schemas'), join(work, 'schemas'), { recursive: true });
writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'agent', private: true, type: 'module' }));
writeFileSync(
  join(work, 'adcp-codegen.config.json'),
  JSON.stringify({
    releases: [sdkReleaseDir()],
    profiles: ['schemas/profiles/guaranteed-publisher.json'],
    normalizations: ['schemas/normalizations/*.json'],
    overlays: ['schemas/overlays/*.json'],
    out: 'generated',
  }),
);
const out = join(work, 'generated');
const profilePath = join(work, 'schemas/profiles/guaranteed-publisher.json');
let colds = 0;

/** A cold run of the same inputs: a fresh output directory (nothing to reuse) and no build cache. */
async function cold(): Promise<Record<string, string>> {
  const dir = join(work, `cold-${++colds}`);
  process.env.ADCP_CODEGEN_NO_CACHE = '1';
  try {
    const run = await runCli(['generate', '--out', dir], work);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stderr, /; 4 unit\(s\) compiled \(/, 'the cold run compiled everything');
    return snapshot(dir);
  } finally {
    delete process.env.ADCP_CODEGEN_NO_CACHE;
  }
}

function editProfile(change: (p: { tools: string[]; capabilities: { media_buy: { supported_pricing_models: string[] } } }) => void): void {
  const p = JSON.parse(readFileSync(profilePath, 'utf8')) as Parameters<typeof change>[0];
  change(p);
  writeFileSync(profilePath, JSON.stringify(p, null, 2));
}

test('first run compiles every unit and records each one in the manifest', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { units: Record<string, { key: string; files: string[] }>; files: Record<string, string> };
  assert.equal(Object.keys(manifest.units).sort(), ['3.0/normalize', '3.0/strip', '3.0/types', 'validate']);
  for (const unit of Object.values(manifest.units)) for (const f of unit.files) assert.ok(manifest.files[f] !== undefined, `${f} is a listed file`);
  const unitFiles = Object.values(manifest.units).flatMap((u) => u.files);
  assert.ok(listFiles(out).filter((f) => f.startsWith('releases/') && !f.includes('/advertised/')).every((f) => unitFiles.includes(f)), 'every compiled file belongs to a unit');
});

test('a capability change recompiles nothing and writes the bytes of a cold run', async () => {
  editProfile((p) => (p.capabilities.media_buy.supported_pricing_models = ['cpm']));
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /0 unit\(s\) compiled, 4 reused/);
  assert.equal(snapshot(out), await cold());
});

test('a rule change recompiles only the normalizers and writes the bytes of a cold run', async () => {
  const rulesPath = join(work, 'schemas/normalizations/media-buy.json');
  const rules = JSON.parse(readFileSync(rulesPath, 'utf8')) as { rules: { summary?: string }[] };
  rules.rules[0]!.summary = 'Changed by the incremental test.';
  writeFileSync(rulesPath, JSON.stringify(rules, null, 2));
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /1 unit\(s\) compiled, 3 reused from generated \(3\.0\/strip, 3\.0\/types, validate\)/);
  assert.equal(snapshot(out), await cold());
});

test('a tool removed from the profile recompiles that release; the result is a cold run\'s', async () => {
  editProfile((p) => (p.tools = p.tools.filter((t) => t !== 'provide_performance_feedback')));
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /; 4 unit\(s\) compiled \(/);
  assert.ok(!listFiles(out).some((f) => f.includes('provide_performance_feedback')), 'the dropped tool left no file behind');
  assert.equal(snapshot(out), await cold());
});

test('a hand-edited file of a reusable unit is not trusted: that unit is compiled again and the file restored', async () => {
  const before = snapshot(out);
  const victim = listFiles(out).find((f) => f.startsWith('releases/3.0/strip/'))!;
  writeFileSync(join(out, victim), readFileSync(join(out, victim), 'utf8') + '\n// edited\n');
  editProfile((p) => (p.capabilities.media_buy.supported_pricing_models = ['cpm', 'flat_rate']));
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /1 unit\(s\) compiled, 3 reused from generated \(3\.0\/normalize, 3\.0\/types, validate\)/);
  const after = snapshot(out);
  assert.is(after[victim], before[victim], `${victim} restored`);
});

test('shipped rules not emitted: one summary line per release, each rule only with --verbose; a team\'s own rules one by one', () => {
  const shipped = join(repoRoot, 'schemas/normalizations/media-buy.json');
  const skipped: SkippedRule[] = [
    { release: '3.0', rule: 'a-to-b', file: shipped, tool: 'get_products', reason: 'target b is not a current field' },
    { release: '3.0', rule: 'c-to-d', file: shipped, tool: 'create_media_buy', reason: 'target d is not a current field' },
    { release: '3.2', rule: 'c-to-d', file: shipped, tool: 'create_media_buy', reason: 'target d is not a current field' },
    { release: '3.2', rule: 'mine', file: join(work, 'schemas/normalizations/media-buy.json'), tool: 'get_products', reason: 'x is not declared' },
  ];
  const capture = (verbose: boolean): string[] => {
    let text = '';
    const stream = Object.assign(new Writable({ write: (c, _e, cb) => ((text += String(c)), cb()) }), { isTTY: false });
    reportSkippedRules(skipped, createLogger(stream, {}, verbose));
    return text.trim().split('\n');
  };
  const quiet = capture(false);
  assert.equal(quiet, [
    'adcp-codegen normalization mine not emitted for get_products (3.2): x is not declared',
    'adcp-codegen 2 shipped normalization rule(s) do not apply to AdCP 3.0 and were not emitted (--verbose lists them)',
    'adcp-codegen 1 shipped normalization rule(s) do not apply to AdCP 3.2 and were not emitted (--verbose lists them)',
  ]);
  const verbose = capture(true);
  for (const s of skipped) assert.ok(verbose.some((l) => l.includes(`normalization ${s.rule} not emitted for ${s.tool} (${s.release})`)), `${s.rule} listed with --verbose`);
});

test('--verbose is a known flag', async () => {
  const help = await runCli(['--help'], work);
  assert.match(help.stdout, /--verbose/);
  const run = await runCli(['generate', '--verbose'], work);
  assert.is(run.code, 0, run.stderr);
});

test.run();
