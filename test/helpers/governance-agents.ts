import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from './cli.js';
import { writeTree } from './fixture-release.js';
import { repoRoot, sdkReleaseDir, sharedReleaseDir } from './releases.js';
import { tempDir } from './temp.js';

/**
 * The reference governance agent and the reference seller as their repositories would generate them: AdCP 3.0.6
 * (embedded) + 3.2.0-beta.5 from ../shared, the seller's sandbox profile (it advertises governance enforcement for
 * create_media_buy) and the governance agent's, and any `extraProfiles`; the set's directory is returned. And a
 * buyer's web presence on loopback: a plain HTTP server whose documents the test sets (its brand.json).
 */
export async function governanceAgentsSet(extraProfiles: readonly string[] = []): Promise<string> {
  const release32 = sharedReleaseDir();
  if (release32 === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is required');
  const work = writeTree(
    {
      'package.json': { name: 'reference-agents', private: true, type: 'module' },
      'adcp-codegen.config.json': {
        releases: [sdkReleaseDir(), release32],
        profiles: [join(repoRoot, 'examples/profiles/guaranteed-publisher-sandbox.json'), join(repoRoot, 'examples/profiles/governance-agent-sandbox.json'), ...extraProfiles],
        normalizations: [join(repoRoot, 'schemas/normalizations/*.json')],
        overlays: [join(repoRoot, 'schemas/overlays/*.json')],
        out: 'generated',
      },
    },
    tempDir('adcp-governance-agents-'),
  );
  symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
  const run = await runCli(['generate'], work);
  if (run.code !== 0) throw new Error(`the reference agents did not generate: ${run.stderr}`);
  return join(work, 'generated');
}

type Served = { url: string; close(): Promise<unknown>; agent: any };
export interface Examples {
  startSellerAgent(o: Record<string, unknown>): Promise<Served>;
  startGovernanceAgent(o: Record<string, unknown>): Promise<Served>;
}

export async function examples(): Promise<Examples> {
  const seller = (await import(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)) as Pick<Examples, 'startSellerAgent'>;
  const governance = (await import(pathToFileURL(join(repoRoot, 'examples/governance-agent.js')).href)) as Pick<Examples, 'startGovernanceAgent'>;
  return { ...seller, ...governance };
}

/** A buyer's site on 127.0.0.1: `documents` maps a path to the JSON it serves (anything else is 404). */
export async function buyerSite(): Promise<{ base: string; documents: Map<string, unknown>; close(): Promise<void> }> {
  const documents = new Map<string, unknown>();
  const server: Server = createServer((req, res) => {
    const doc = documents.get(req.url ?? '');
    if (doc === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, documents, close: () => new Promise((r) => server.close(() => r())) };
}

/** An example agent in a process of its own, started as a deployment starts it: `node examples/<script>` and its environment. */
export interface ExampleProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** What it printed on stderr (its start line, warnings). */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Starts `examples/<script>` with `env` (PORT 0: a free port) and resolves once the runtime logs its start line (`… serving
 * MCP at <url> …`); rejects with its stderr if it exits first. Killed at the end by `close` (SIGTERM, then SIGKILL).
 */
export function startExample(script: string, env: Record<string, string>): Promise<ExampleProcess> {
  // The start line is the runtime's, at info (test:real runs at ADCP_LOG_LEVEL=warn): this process's level is raised to see it.
  const child = spawn(process.execPath, [join(repoRoot, 'examples', script)], { env: { ...process.env, PORT: '0', ADCP_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /serving MCP at (https?:\/\/[^\s",]+?\/mcp)\b/.exec(stderr)?.[1];
      if (url !== undefined) {
        resolve({
          url,
          child,
          stderr: () => stderr,
          close: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
              child.once('exit', () => (clearTimeout(kill), done()));
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`examples/${script} exited (${code}) before it served: ${stderr}`)));
  });
}

/** The issuer a reference governance agent says once it serves (its line follows the runtime's start line). */
export async function issuerOf(agent: { stderr(): string }): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const said = /tokens issued as (\S+)/.exec(agent.stderr())?.[1];
    if (said !== undefined) return said;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the governance agent never said its issuer: ${agent.stderr()}`);
}
