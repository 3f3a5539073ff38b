import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
 * ../shared's, copied without bundled/ (as the README vendors it) to the path the README's config names. The installed
 * CLI generates the set, the README's `build` compiles src/ (strict, NodeNext), its `start` serves MCP on 127.0.0.1
 * with ADCP_API_KEY (its state in the run's own ADCP_STATE_DIR), and the official client calls it: without the key a
 * protected tool is refused with 401, with it as a 3.0 buyer and as a 3.2 buyer, and the README's own buyer
 * (src/buyer.ts): each answer is valid in its own release (checked again here, beside development mode's own check),
 * with create_media_buy's media buy status where each release keeps it. A profile that gains a tool the agent has no
 * handler for then fails the start, before anything listens.
 */
const release32 = sharedReleaseDir();
if (release32 === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is required for the real-release suite');
const files = readmeFiles(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
const API_KEY = 'sk_readme_test_key';
const work = tempDir('adcp-codegen-readme-');
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

test('install the packed tarball where the README says, link the 3.2 release, generate with the installed CLI, build', () => {
  writeTree(files, work);
  const tarballPath = pkg.devDependencies['adcp-codegen']!.replace(/^file:/, '');
  const packed = packRepository();
  assert.is(join(work, tarballPath), join(work, 'vendor', packed.filename), 'the README installs the tarball npm pack makes');
  mkdirSync(join(work, 'vendor/adcp'), { recursive: true });
  copyFileSync(packed.tarball, join(work, tarballPath));
  // Vendored as the README's rsync does it: without bundled/, which generation never reads.
  cpSync(release32, join(work, 'vendor/adcp/3.2.0-beta.5'), { recursive: true, filter: (from) => from !== join(release32, 'bundled') });
  installPacked(join(work, tarballPath), work);

  assert.equal(script('generate'), ['adcp-codegen', 'generate']);
  assert.equal(script('prebuild'), ['adcp-codegen', 'generate'], 'npm run build regenerates first');
  const generated = run('generate');
  assert.is(generated.status, 0, generated.output);
  assert.match(generated.output, /AdCP 3\.2\.0-beta\.5, AdCP 3\.0\.6/);
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

    // The README's buyer, as `npm run buyer` runs it: each answer in the release it pinned (unpinned: the newest).
    const [node, buyerScript] = script('buyer');
    assert.is(node, 'node');
    const bought = spawnSync(process.execPath, [join(work, buyerScript!)], { cwd: work, encoding: 'utf8', env: { ...process.env, AGENT_URL: url, ADCP_API_KEY: API_KEY } });
    assert.is(bought.status, 0, bought.stderr);
    const lines = bought.stdout.trim().split('\n').map((l) => /^(\S+) (.*)$/.exec(l)!.slice(1));
    assert.equal(lines.map(([pin]) => pin), ['unpinned', '3.0', '3.2-beta.5']);
    for (const [pin, json] of lines) {
      const release = pin === '3.0' ? older : newer;
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
