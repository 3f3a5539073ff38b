import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from './helpers/cli.js';
import { tempDir, writeTree } from './helpers/fixture-release.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The README's TypeScript agent, exactly as written there: every fenced block whose info string names a file
 * (```ts src/server.ts) is written into a scratch agent repository, the set is generated, `npm run build`'s command
 * compiles src/ (strict, NodeNext, the README's own tsconfig), and `npm start`'s command serves MCP on 127.0.0.1,
 * where the official client lists the tools and calls them. A README edit that breaks any step fails here.
 */
export function readmeFiles(markdown: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const m of markdown.matchAll(/^```[a-z]+ ([\w./-]+)\n([\s\S]*?)^```$/gm)) files[m[1]!] = m[2]!;
  return files;
}

const files = readmeFiles(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
const work = tempDir('adcp-codegen-readme-');

/** The agent's node_modules: this repository's dependencies, plus adcp-codegen itself as the README installs it. */
function installDependencies(): void {
  const modules = join(work, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(repoRoot, 'node_modules'))) symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name));
  symlinkSync(repoRoot, join(modules, 'adcp-codegen'), 'dir');
}

function script(name: string): string[] {
  const pkg = JSON.parse(files['package.json']!) as { scripts: Record<string, string> };
  const command = pkg.scripts[name];
  assert.type(command, 'string', `package.json has a ${name} script`);
  return command!.split(/\s+/);
}

test('the README names a complete agent layout', () => {
  for (const f of ['package.json', 'tsconfig.json', 'adcp-codegen.config.json', 'profiles/my-seller.json', 'src/server.ts']) assert.type(files[f], 'string', `README block for ${f}`);
  const tsconfig = JSON.parse(files['tsconfig.json']!) as { compilerOptions: Record<string, unknown>; include: string[] };
  assert.equal(tsconfig.include, ['src'], 'tsc compiles src/ only, never generated/');
  assert.is(tsconfig.compilerOptions.strict, true);
  assert.is(tsconfig.compilerOptions.module, 'NodeNext');
});

test('generate, build and start exactly as the README says; the agent serves MCP on 127.0.0.1', async () => {
  writeTree(files, work);
  installDependencies();
  assert.equal(script('generate'), ['adcp-codegen', 'generate']);
  const generated = await runCli(script('generate').slice(1), work);
  assert.is(generated.code, 0, generated.stderr);

  const [tsc, ...tscArgs] = script('build');
  const build = spawnSync(join(work, 'node_modules/.bin', tsc!), tscArgs, { cwd: work, encoding: 'utf8' });
  assert.is(build.status, 0, `${build.stdout}${build.stderr}`);
  assert.equal(readdirSync(join(work, 'dist')), ['server.js'], 'only src/ was compiled');

  const [node, ...startArgs] = script('start');
  assert.is(node, 'node');
  const child = spawn(process.execPath, startArgs, { cwd: work, env: { ...process.env, PORT: '0', ADCP_MODE: 'development' }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await listening(child);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'readme-buyer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await client.listTools();
    assert.equal(tools.map((t) => t.name), ['create_media_buy', 'get_adcp_capabilities', 'get_products']);

    type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, any> };
    const products = (await client.callTool({ name: 'get_products', arguments: { brief: 'homepage', buying_mode: 'brief', context: { trace: 'r1' } } })) as Result;
    assert.not.ok(products.isError, products.content[0]!.text);
    assert.is(products.structuredContent!.products[0].product_id, 'homepage_takeover');
    assert.is(products.structuredContent!.adcp_version, '3.0');
    assert.equal(products.structuredContent!.context, { trace: 'r1' });

    // Development mode checks the handler's body against the 3.0.6 response schema before sending it.
    const buy = (await client.callTool({ name: 'create_media_buy', arguments: createMediaBuyRequest() })) as Result;
    assert.not.ok(buy.isError, buy.content[0]!.text);
    assert.match(String(buy.structuredContent!.media_buy_id), /^mb_/);
    assert.is(buy.structuredContent!.status, 'pending_creatives');

    const invalid = (await client.callTool({ name: 'create_media_buy', arguments: { context: { trace: 'r2' } } })) as Result;
    assert.ok(invalid.isError);
    const rejection = JSON.parse(invalid.content[0]!.text) as Record<string, any>;
    assert.is(rejection.adcp_error.code, 'INVALID_REQUEST');
    assert.equal(rejection.context, { trace: 'r2' });
    await client.close();
  } finally {
    await stop(child);
  }
});

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
