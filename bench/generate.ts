import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createRuntimeAjv } from '../generator/compile/index.js';
import { loadRelease, type Release } from '../generator/load/index.js';
import { listFiles } from '../generator/write/index.js';
import { tempDir } from '../test/helpers/fixture-release.js';
import { repoRoot, sdkReleaseDir, sharedReleaseDir } from '../test/helpers/releases.js';
import { writeAgentDirectory } from './agent-directory.js';
import { median } from './stats.js';

/**
 * Issues 12 (point 3) and 14 (point 4): `adcp-codegen generate` as a new user meets it — the example
 * guaranteed-publisher profile over AdCP 3.2.0-beta.5 + the embedded 3.0.6 (3.0.6 alone without ../shared), in a
 * fresh agent directory, each run a new node process (wall and CPU time, peak RSS; node's start included):
 *   cold (no output, no build cache), a no-op regeneration, and a one-field capability change.
 * Baselines measured in this run: the run-time Ajv compile of the same tools that generation replaces (what every
 * process start pays without it), the cold run itself for the two regenerations, and prettier over the set's JSON
 * (the format stage's cost before JSON was written by JSON.stringify).
 */
const RUNS = 3;
const CLI = pathToFileURL(join(repoRoot, 'dist/generator/cli.js')).href;

interface Run {
  readonly ms: number;
  /** User + system CPU time of the process: steadier than wall time on a shared machine. */
  readonly cpuMs: number;
  readonly rssMb: number;
  readonly stderr: string;
}

export async function run(): Promise<string[]> {
  const lines: string[] = [];
  const shared = sharedReleaseDir();
  const releases = shared === undefined ? [sdkReleaseDir()] : [sdkReleaseDir(), shared];
  const label = shared === undefined ? 'AdCP 3.0.6' : 'AdCP 3.2.0-beta.5 + 3.0.6';
  const colds: Run[] = [];
  const noops: Run[] = [];
  const changes: Run[] = [];
  let bytes = 0;
  let fileCount = 0;
  let jsonFiles: string[] = [];
  let keep: string | undefined;
  for (let i = 0; i < RUNS; i++) {
    const dir = agentDirectory(releases);
    colds.push(cli(dir));
    noops.push(cli(dir));
    if (!noops[i]!.stderr.includes('nothing changed')) throw new Error(`bench/generate: the second run was not a no-op:\n${noops[i]!.stderr}`);
    // One field of the capabilities: the advertised surface changes, the tool set does not.
    const profile = join(dir, 'profiles/guaranteed-publisher.json');
    const p = JSON.parse(readFileSync(profile, 'utf8')) as { capabilities: { media_buy: { supported_pricing_models: string[] } } };
    p.capabilities.media_buy.supported_pricing_models = i % 2 === 0 ? ['cpm'] : ['flat_rate'];
    writeFileSync(profile, JSON.stringify(p, null, 2));
    changes.push(cli(dir));
    if (!/0 unit\(s\) compiled/.test(changes[i]!.stderr)) throw new Error(`bench/generate: the capability change recompiled:\n${changes[i]!.stderr}`);
    if (i === 0) {
      const out = join(dir, 'generated');
      const files = listFiles(out);
      fileCount = files.length;
      bytes = files.reduce((n, f) => n + statSync(join(out, f)).size, 0);
      jsonFiles = files.filter((f) => f.endsWith('.json')).map((f) => join(out, f));
      keep = dir;
    } else rmSync(dir, { recursive: true, force: true });
  }

  // Baseline: what an agent pays at start-up without generation — run-time Ajv over the same selected tools.
  const profile = JSON.parse(readFileSync(join(repoRoot, 'schemas/profiles/guaranteed-publisher.json'), 'utf8')) as { tools: string[] };
  const runtimeMs = releases.map((d) => runtimeCompile(loadRelease(d), profile.tools)).reduce((a, b) => a + b, 0);

  // Baseline: prettier over the JSON the set holds, as the format stage did before.
  const prettier = await import('prettier');
  let t = performance.now();
  for (const f of jsonFiles) await prettier.format(readFileSync(f, 'utf8'), { parser: 'json', printWidth: 120 });
  const prettierJsonMs = performance.now() - t;
  if (keep !== undefined) rmSync(keep, { recursive: true, force: true });

  const cold = median(colds.map((r) => r.ms));
  const noop = median(noops.map((r) => r.ms));
  const change = median(changes.map((r) => r.ms));
  lines.push(
    `guaranteed-publisher over ${label}, fresh agent directory, new node process each, median of ${RUNS} (min–max):`,
    `  cold (no output, no cache): ${s(cold)} (${range(colds.map((r) => r.ms))}), CPU ${s(median(colds.map((r) => r.cpuMs)))}, peak RSS ${median(colds.map((r) => r.rssMb)).toFixed(0)} MB (${range(colds.map((r) => r.rssMb), 'MB')})` +
      ` — goal ≤ 10 s, ≤ 400 MB; baseline: run-time Ajv compiling the same tools at every process start ${s(runtimeMs)}`,
    `  no-op regeneration: ${s(noop)} (${range(noops.map((r) => r.ms))}), CPU ${s(median(noops.map((r) => r.cpuMs)))} → ${(cold / noop).toFixed(0)}× cheaper than cold — goal ≤ 1 s`,
    `  one-field capability change: ${s(change)} (${range(changes.map((r) => r.ms))}), CPU ${s(median(changes.map((r) => r.cpuMs)))} → ${(cold / change).toFixed(1)}× cheaper than cold — goal ≤ 3 s`,
    `  the set: ${(bytes / 1e6).toFixed(2)} MB in ${fileCount} files; prettier over its ${jsonFiles.length} JSON files would add ${s(prettierJsonMs)} to every cold run`,
  );
  if (shared === undefined) lines.push('(3.2.0-beta.5 figures need ../shared: measured over 3.0.6 alone)');
  else lines.push(...everyTool(shared, cold, profile.tools.length));
  return lines;
}

/**
 * Issue 13 (point 4): every tool of AdCP 3.2.0-beta.5 and every tool of 3.0.6 over both releases — the profiles of
 * test/real/mcp-every-tool.test.ts (every-3-2, every-3-0, both-releases) — generated cold: the figure a change to
 * how the compilers walk a release (one shared schema graph instead of a walk each) must not make slower.
 */
function everyTool(shared: string, publisherCold: number, publisherTools: number): string[] {
  const r32 = loadRelease(shared, '3.2.0-beta.5');
  const r30 = loadRelease(sdkReleaseDir(), '@adcp/sdk');
  const toolsOf = (r: Release): string[] => [...r.tools.keys()].filter((t) => !r.unavailable.has(t)).sort();
  const caps = { adcp: { major_versions: [3], idempotency: { supported: true, replay_ttl_seconds: 86400 } }, supported_protocols: ['media_buy'] };
  const profiles = [
    { name: 'every-3-2', tools: toolsOf(r32), shared_tools: toolsOf(r32), surface: 'sandbox', releases: ['3.2'], capabilities: caps },
    { name: 'every-3-0', tools: toolsOf(r30), shared_tools: toolsOf(r30), surface: 'sandbox', releases: ['3.0'], advertise: { outputSchema: true }, capabilities: caps },
    {
      name: 'both-releases',
      tools: ['get_adcp_capabilities', 'get_products', 'create_media_buy', 'list_accounts'],
      shared_tools: ['list_accounts'],
      advertise: { annotations: 'structural', outputSchema: true },
      capabilities: caps,
    },
  ];
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = agentDirectory([sdkReleaseDir(), shared], profiles);
    runs.push(cli(dir));
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    `every tool of AdCP 3.2.0-beta.5 (${toolsOf(r32).length}) and of 3.0.6 (${toolsOf(r30).length}) over both releases, cold, new node process each, median of ${RUNS} (min–max):`,
    `  ${s(median(runs.map((r) => r.ms)))} (${range(runs.map((r) => r.ms))}), CPU ${s(median(runs.map((r) => r.cpuMs)))}, peak RSS ${median(runs.map((r) => r.rssMb)).toFixed(0)} MB (${range(runs.map((r) => r.rssMb), 'MB')})` +
      ` → ${(median(runs.map((r) => r.ms)) / publisherCold).toFixed(1)}× the guaranteed-publisher cold run above (${publisherTools} tools)`,
  ];
}

/** A new agent repository: its own package.json, the profiles (the example one unless told), the shipped rules and overlays. */
function agentDirectory(releases: readonly string[], profiles: readonly Record<string, unknown>[] = [guaranteedPublisher()]): string {
  return writeAgentDirectory(tempDir('adcp-codegen-bench-gen-'), releases, profiles, { 'package.json': { name: 'agent', private: true, type: 'module' } });
}

function guaranteedPublisher(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(repoRoot, 'schemas/profiles/guaranteed-publisher.json'), 'utf8')) as Record<string, unknown>;
}

/** `adcp-codegen generate` in `cwd`, in a new process: wall time and the process's peak RSS. */
function cli(cwd: string): Run {
  const script = `const { main } = await import(${JSON.stringify(CLI)});
const code = await main(['generate']);
const u = process.resourceUsage();
process.stdout.write(JSON.stringify({ rss: u.maxRSS, cpu: (u.userCPUTime + u.systemCPUTime) / 1000 }));
process.exitCode = code;`;
  const t = performance.now();
  // This agent directory's own private cache (the runtime's and the generator's, runtime/user-cache.ts): a cold run
  // is cold, and the regenerations after it find what it recorded.
  const env = { ...process.env, NO_COLOR: '1', ADCP_CODEGEN_CACHE_DIR: join(cwd, '.user-cache') };
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, encoding: 'utf8', env });
  const ms = performance.now() - t;
  if (child.status !== 0) throw new Error(`bench/generate: adcp-codegen generate failed in ${cwd}:\n${child.stderr}`);
  const usage = JSON.parse(child.stdout) as { rss: number; cpu: number };
  return { ms, cpuMs: usage.cpu, rssMb: usage.rss / 1024, stderr: child.stderr };
}

function runtimeCompile(release: Release, tools: readonly string[]): number {
  const t = performance.now();
  const ajv = createRuntimeAjv(release);
  for (const name of tools) {
    const tool = release.tools.get(name);
    if (tool === undefined || release.unavailable.has(name)) continue;
    for (const path of [tool.requestSchema, tool.responseSchema]) ajv.getSchema(release.schemas.byPath.get(path)!.id);
  }
  return performance.now() - t;
}

function range(xs: readonly number[], unit?: 'MB'): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return unit === 'MB' ? `${lo.toFixed(0)}–${hi.toFixed(0)} MB` : `${s(lo)}–${s(hi)}`;
}

function s(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
