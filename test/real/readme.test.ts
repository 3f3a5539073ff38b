import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, writeTree } from '../helpers/fixture-release.js';
import { setAt } from '../helpers/generated.js';
import { rpc, toolsCall } from '../helpers/http.js';
import { installPacked, packRepository } from '../helpers/pack.js';
import { createMediaBuyRequest } from '../helpers/payloads.js';
import { repoRoot, sharedReleaseDir } from '../helpers/releases.js';
import { readmeFiles } from '../helpers/readme.js';

/**
 * The README's TypeScript agent, exactly as written there, end to end: every fenced block naming a file is written
 * into a scratch agent repository; adcp-codegen is the tarball `npm pack` makes of this repository, at the path the
 * README's package.json installs it from, laid out as npm installs it (test/helpers/pack.ts); AdCP 3.2.0-beta.5 is
 * vendored by the README's own commands (its shell lines naming adcp-spec, and the one making my-seller), run by bash
 * against a spec repository made here from ../shared's release (a git repository over file://, with a bundled/ and
 * another release beside it that the sparse checkout must leave out). The installed CLI generates the set (noting
 * the facades 3.2 deprecates), the README's `build` compiles src/ (strict, NodeNext), its `start` serves MCP and A2A
 * on 127.0.0.1 with ADCP_API_KEY (its state in the run's own ADCP_STATE_DIR), and the official client calls it:
 * without the key a protected tool is refused with 401, with it as a 3.0 buyer and as a 3.2 buyer, and the README's
 * own buyer (src/buyer.ts, unpinned answered in the stable 3.0): each answer is valid in its own release (checked
 * again here, beside development mode's own check), with create_media_buy's media buy status where each release keeps
 * it. A profile that gains a tool the agent has no handler for then fails the start, before anything listens.
 */
const release32 = sharedReleaseDir();
if (release32 === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is required for the real-release suite');
const files = readmeFiles(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
const API_KEY = 'sk_readme_test_key';
const parent = tempDir('adcp-codegen-readme-');
/** my-seller, made by the README's own commands in `parent`. */
const work = join(parent, 'my-seller');
const pkg = JSON.parse(files['package.json']!) as { scripts: Record<string, string>; devDependencies: Record<string, string> };

function script(name: string): string[] {
  const command = pkg.scripts[name];
  assert.type(command, 'string', `package.json has a ${name} script`);
  return command!.split(/\s+/);
}

/** Runs a package.json script's command from the agent's node_modules/.bin, as npm run does. */
function run(name: string): { status: number | null; output: string } {
  const [bin, ...args] = script(name);
  const r = spawnSync(join(work, 'node_modules/.bin', bin!), args, { cwd: work, encoding: 'utf8', env: { ...process.env, ADCP_CODEGEN_NO_CACHE: '1' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/**
 * AdCP's spec repository as far as the README's commands read it: 3.2.0-beta.5 at dist/schemas/ with one file under
 * its bundled/ (the rest left out: generation never reads it), and another release beside it.
 */
function specRepository(): string {
  const repo = tempDir('adcp-spec-');
  const at = join(repo, 'dist/schemas/3.2.0-beta.5');
  cpSync(release32!, at, { recursive: true, filter: (from) => !from.startsWith(join(release32!, 'bundled') + '/') });
  mkdirSync(join(at, 'bundled/media-buy'), { recursive: true });
  writeFileSync(join(at, 'bundled/media-buy/get-products-request.json'), '{}');
  mkdirSync(join(repo, 'dist/schemas/3.1.0'), { recursive: true });
  writeFileSync(join(repo, 'dist/schemas/3.1.0/manifest.json'), '{}');
  const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=adcp-codegen', '-c', 'user.email=test@example.invalid', ...args], { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'uploadpack.allowFilter', 'true'); // a partial clone (--filter) over file://, as GitHub serves one
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  return repo;
}

test('vendor 3.2 with the README\'s commands, install the packed tarball where it says, generate with the installed CLI, build', () => {
  const tarballPath = pkg.devDependencies['adcp-codegen']!.replace(/^file:/, '');
  const packed = packRepository();
  assert.is(tarballPath, `vendor/${packed.filename}`, 'the README installs the tarball npm pack makes');
  // The README's first shell block: this repository's clone and its npm pack are ours (the tarball at the path they
  // leave it), npm install is installPacked; the rest (the spec repository and my-seller) runs as written.
  mkdirSync(join(parent, 'adcp-codegen'));
  copyFileSync(packed.tarball, join(parent, 'adcp-codegen', packed.filename));
  const blocks = [...readFileSync(join(repoRoot, 'README.md'), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes('adcp-spec'))!.split('\n');
  const steps = block.filter((l) => l.includes('adcp-spec') || l.startsWith('mkdir my-seller'));
  assert.is(steps.length, 4, `the README's vendoring steps:\n${block.join('\n')}`);
  const spec = specRepository();
  const commands = steps.map((l) => l.replace('https://github.com/adcontextprotocol/adcp', `file://${spec}`)).join('\n');
  const vendored = spawnSync('bash', ['-euc', commands], { cwd: parent, encoding: 'utf8' });
  assert.is(vendored.status, 0, `${commands}\n${vendored.stderr}`);
  assert.ok(existsSync(join(work, 'vendor/adcp/3.2.0-beta.5/manifest.json')), 'the release is vendored where the config names it');
  assert.not.ok(existsSync(join(work, 'vendor/adcp/3.2.0-beta.5/bundled')), 'without bundled/');
  assert.not.ok(existsSync(join(parent, 'adcp-spec/dist/schemas/3.1.0')), 'the sparse checkout fetched no other release');
  writeTree(files, work);
  installPacked(join(work, tarballPath), work);

  assert.equal(script('generate'), ['adcp-codegen', 'generate']);
  assert.equal(script('prebuild'), ['adcp-codegen', 'generate'], 'npm run build regenerates first');
  const generated = run('generate');
  assert.is(generated.status, 0, generated.output);
  assert.match(generated.output, /AdCP 3\.2\.0-beta\.5, AdCP 3\.0\.6/);
  // What the README says the build's generate notes: the facades 3.2 deprecates, with what supersedes them.
  for (const tool of ['create_media_buy', 'get_products']) assert.match(generated.output, new RegExp(`^note ${tool}: deprecated in AdCP 3\\.2\\.0 .*superseded by`, 'm'));
  assert.not.match(generated.output, /^warning/m);
  const build = run('build');
  assert.is(build.status, 0, build.output);
  assert.equal(readdirSync(join(work, 'dist')).sort(), ['buyer.js', 'server.js'], 'only src/ was compiled');
});

type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, any> };

test("the agent answers a 3.0 and a 3.2 buyer, each in its own release, from one function per tool in 3.2's shape", async () => {
  const child = start();
  try {
    const url = await listening(child);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { loadProfile } = await setAt(join(work, 'generated'));
    const agent = (await loadProfile('my-seller' as never)) as unknown as {
      releases: readonly string[];
      validateResponse(tool: string, body: unknown, o: { release: string }): { ok: boolean; issues?: unknown[] };
    };
    const [newer, older] = agent.releases as [string, string];
    assert.equal([newer, older], ['3.2-beta.5', '3.0']);
    // Without the key a protected call is HTTP 401 with a challenge; discovery stays public.
    const anonymous = new Client({ name: 'readme-anonymous', version: '1.0.0' });
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(url)));
    assert.ok((await anonymous.callTool({ name: 'get_adcp_capabilities', arguments: {} })).isError !== true);
    await anonymous.close();
    const refused = await rpc(url, toolsCall('get_products', { brief: 'x', buying_mode: 'brief' }));
    assert.is(refused.status, 401, refused.text);
    assert.match(String(refused.headers['www-authenticate']), /^Bearer /);
    const client = new Client({ name: 'readme-buyer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } }));
    const { tools } = await client.listTools();
    assert.equal(tools.map((t) => t.name), ['create_media_buy', 'get_adcp_capabilities', 'get_products']);

    const valid = (tool: string, r: Result, release: string): Record<string, any> => {
      assert.not.ok(r.isError, r.content[0]!.text);
      const verdict = agent.validateResponse(tool, r.structuredContent, { release });
      assert.ok(verdict.ok, `${tool} answer valid under ${release}: ${JSON.stringify(verdict.issues)}`);
      assert.is(r.structuredContent!.adcp_version, release);
      return r.structuredContent!;
    };
    for (const release of [older, newer]) {
      const products = valid('get_products', (await client.callTool({ name: 'get_products', arguments: { brief: 'homepage', buying_mode: 'brief', adcp_version: release, context: { trace: release } } })) as Result, release);
      assert.is(products.products[0].product_id, 'homepage_takeover');
      assert.equal(products.context, { trace: release });
      const buy = valid('create_media_buy', (await client.callTool({ name: 'create_media_buy', arguments: createMediaBuyRequest({ adcp_version: release }) })) as Result, release);
      assert.match(String(buy.media_buy_id), /^mb_/);
      if (release === older) {
        // 3.0 keeps the media buy's state in status; 3.2's media_buy_status has no place there.
        assert.is(buy.status, 'pending_creatives');
        assert.is(buy.media_buy_status, undefined);
      } else {
        assert.is(buy.media_buy_status, 'pending_creatives');
        assert.is(buy.status, 'completed');
      }
    }
    const capabilities = (await client.callTool({ name: 'get_adcp_capabilities', arguments: {} })) as Result;
    assert.equal([...(capabilities.structuredContent!.adcp.supported_versions as string[])].sort(), [older, newer].sort());
    assert.is(capabilities.structuredContent!.adcp_version, older, 'unpinned: answered in the stable release');

    // A2A is on, as the README says: @a2a-js/sdk is installed (here as this repository's devDependency, in an agent
    // as @adcp/sdk's peer), so the agent card is public and names the A2A endpoint.
    const card = await fetch(new URL('/.well-known/agent-card.json', url));
    assert.is(card.status, 200);
    assert.is(((await card.json()) as { url: string }).url, new URL('/a2a', url).href);

    // The README's buyer, as `npm run buyer` runs it: each answer in the release it pinned (unpinned: the highest
    // stable one, 3.0; the pre-release only to its exact pin).
    const [node, buyerScript] = script('buyer');
    assert.is(node, 'node');
    const bought = spawnSync(process.execPath, [join(work, buyerScript!)], { cwd: work, encoding: 'utf8', env: { ...process.env, AGENT_URL: url, ADCP_API_KEY: API_KEY } });
    assert.is(bought.status, 0, bought.stderr);
    const lines = bought.stdout.trim().split('\n').map((l) => /^(\S+) (.*)$/.exec(l)!.slice(1));
    assert.equal(lines.map(([pin]) => pin), ['unpinned', '3.0', '3.2-beta.5']);
    for (const [pin, json] of lines) {
      const release = pin === '3.2-beta.5' ? newer : older;
      const body = valid('create_media_buy', { content: [{ text: json! }], structuredContent: JSON.parse(json!) as Record<string, any> }, release);
      assert.equal([body.status, body.media_buy_status], release === older ? ['pending_creatives', undefined] : ['completed', 'pending_creatives'], pin);
    }

    const invalid = (await client.callTool({ name: 'create_media_buy', arguments: { adcp_version: older, context: { trace: 'r2' } } })) as Result;
    assert.ok(invalid.isError);
    const rejection = JSON.parse(invalid.content[0]!.text) as Record<string, any>;
    assert.is(rejection.adcp_error.code, 'INVALID_REQUEST');
    assert.equal(rejection.context, { trace: 'r2' });
    await client.close();
  } finally {
    await stop(child);
  }
});

test('a profile that gains a tool the agent has no handler for fails the start, naming it, before anything listens', async () => {
  const profile = JSON.parse(files['profiles/my-seller.json']!) as { tools: string[] };
  writeFileSync(join(work, 'profiles/my-seller.json'), JSON.stringify({ ...profile, tools: [...profile.tools, 'update_media_buy'] }, null, 2));
  const generated = run('generate');
  assert.is(generated.status, 0, generated.output);
  const child = start();
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.is.not(code, 0);
  assert.match(stderr, /the handlers do not match profile my-seller: write a handler for update_media_buy/);
  assert.not.match(stderr, /^\s+at /m, 'one line to act on, no stack trace');
  assert.not.match(stderr, /serving MCP/);
});

function start(): ChildProcess {
  const [node, ...startArgs] = script('start');
  assert.is(node, 'node');
  return spawn(process.execPath, startArgs, { cwd: work, env: { ...process.env, PORT: '0', ADCP_MODE: 'development', ADCP_API_KEY: API_KEY, ADCP_LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The URL the server prints once it listens; bounded, so a server that never starts fails the test. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`the README server did not start within 20 s:\n${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /serving MCP at (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the README server exited (${code}):\n${stderr}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

test.run();
