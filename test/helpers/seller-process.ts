import { spawn, type ChildProcess } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXAMPLE_ACCOUNTS } from './generated.js';
import { repoRoot } from './releases.js';
import { tempDir } from './temp.js';

/**
 * The reference seller in agent processes of its own, as the tests that run several instances or signal one need it:
 * a script in a scratch agent repository (the repository's node_modules beside it) that loads the committed set's
 * guaranteed-publisher, wraps the seller's handlers as the test says, serves it on agent.serve with a Bearer API key
 * and prints its MCP URL on stdout once it listens (a start that fails prints its one line on stderr and exits 1).
 */
export interface SellerScript {
  /** `loadProfile`'s options, as JavaScript source. */
  readonly agentOptions: string;
  /** Source lines run first (imports, a side-effect pool), before the agent is loaded. */
  readonly preamble?: readonly string[];
  /** Source lines defining `handlers` from `seller` (the reference seller's own handlers). */
  readonly handlers: readonly string[];
  /** `serve`'s options besides `port` and `authenticate`, as JavaScript source (default none). */
  readonly serveOptions?: string;
  readonly key: string;
  readonly principal: string;
}

/** Writes the script; returns its path. */
export function sellerScript(s: SellerScript): string {
  const dir = tempDir();
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const script = join(dir, 'agent.mjs');
  writeFileSync(
    script,
    [
      ...(s.preamble ?? []),
      `const { loadProfile, apiKeyAuth } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'generated/index.js')).href)});`,
      `const { createSellerHandlers } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)});`,
      `const agent = await loadProfile('guaranteed-publisher', ${s.agentOptions});`,
      `const seller = createSellerHandlers(agent, { accounts: ${JSON.stringify(EXAMPLE_ACCOUNTS)} });`,
      ...s.handlers,
      `const served = await agent.serve(handlers, { ${s.serveOptions ?? ''} port: 0, authenticate: apiKeyAuth({ ${JSON.stringify(s.key)}: { principal: ${JSON.stringify(s.principal)} } }) }).catch((e) => {`,
      `  process.stderr.write(e.message + '\\n');`,
      `  process.exit(1);`,
      `});`,
      `process.stdout.write(served.url + '\\n');`,
    ].join('\n'),
  );
  return script;
}

export interface SellerProcess {
  /** Its MCP URL; `base` without `/mcp`. */
  readonly url: string;
  readonly base: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr(): string;
}

/** Starts `script` with `env` over this process's; rejects (with its stderr, `secret` masked) when it exits before listening. */
export function startSeller(script: string, env: Record<string, string>, secret?: string): Promise<SellerProcess> {
  const child = spawn(process.execPath, [script], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => {
      const url = d.toString().trim();
      resolve({ url, base: url.replace(/\/mcp$/, ''), child, exited, stderr: () => err });
    });
    void exited.then((code) => reject(new Error(`the agent exited (${code}) before it listened: ${secret === undefined ? err : err.split(secret).join('…')}`)));
  });
}

/** The JSON lines a process wrote (its log). */
export function logLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
