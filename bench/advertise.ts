import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { advertise, AdvertisedSources, type ToolsListEntry } from '../generator/project/index.js';
import { toolsListJson } from '../generator/emit/index.js';
import { loadOverlays, readProfile, servedReleases, loadRelease, type Profile } from '../generator/load/index.js';
import { select } from '../generator/select/index.js';
import { repoRoot, sdkReleaseDir, sharedReleaseDir } from '../test/helpers/releases.js';

/**
 * What buyers' hosts read first: tools/list bytes per example profile over AdCP 3.2 + 3.0.6, and for every 3.2
 * tool, in structural and full annotation modes (outputSchema off, the default, and on), beside the release's own
 * production projection for the same tools (input and output schema from `profiles/production`; a tool that profile
 * leaves out — a deprecated facade, the compliance controller — from the full projection, as AdCP 3.2 advertises
 * it). Goal: structural ≤ 1.05× the production projection. Then the official MCP Client's `listTools()` time over
 * Streamable HTTP on 127.0.0.1 for each example profile (goal ≤ 1 s for guaranteed-publisher), against the full
 * mode with output schemas (what the endpoint advertised before) measured in the same run.
 */
export async function run(): Promise<string[]> {
  const dir32 = sharedReleaseDir();
  if (dir32 === undefined) return ['(tools/list figures need ../shared/adcp/3.2.0-beta.5)'];
  const releases = [loadRelease(dir32, '3.2.0-beta.5'), loadRelease(sdkReleaseDir(), '@adcp/sdk')];
  const r32 = releases[0]!;
  const overlayDir = join(repoRoot, 'schemas/overlays');
  const overlays = loadOverlays(readdirSync(overlayDir).filter((f) => f.endsWith('.json')).map((f) => join(overlayDir, f)));
  const profileDir = join(repoRoot, 'schemas/profiles');
  const examples = readdirSync(profileDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => readProfile(join(profileDir, f), `schemas/profiles/${f}`));
  const everyTool = [...r32.tools.keys()].filter((t) => !r32.unavailable.has(t));
  const all32: Profile = { ...examples[0]!, name: 'every-3.2-tool', file: 'bench', tools: everyTool, sharedTools: everyTool, surface: 'sandbox', releases: ['3.2'] };
  const productionTools = [...r32.mcp!.production!.keys()];
  const production32: Profile = { ...all32, name: 'the-3.2-production-profile-tools', tools: productionTools, sharedTools: productionTools, surface: 'production' };

  const sources = new AdvertisedSources(overlays);
  const endpoint = (profile: Profile, annotations: 'structural' | 'full', outputSchema: boolean): ToolsListEntry[] => {
    const p: Profile = { ...profile, advertise: { annotations, outputSchema } };
    const served = servedReleases(p, releases);
    const selections = select([p], new Map([[p.name, served]])).get(p.name)!;
    return [...advertise(p, selections, sources, []).endpoint];
  };
  const bytes = (entries: readonly ToolsListEntry[]): number => Buffer.byteLength(JSON.stringify({ tools: entries.map(toolsListJson) }));
  const production = (entries: readonly ToolsListEntry[]): number =>
    Buffer.byteLength(
      JSON.stringify({
        tools: entries.map((e) => {
          const own = r32.mcp!.production!.get(e.name) ?? r32.mcp!.tools.get(e.name);
          if (own === undefined) return toolsListJson(e); // a 3.0-only tool: nothing in 3.2 to compare with
          return { name: e.name, description: e.description, annotations: e.annotations, inputSchema: own.inputSchema, outputSchema: own.outputSchema };
        }),
      }),
    );
  const mb = (n: number): string => `${(n / 1e6).toFixed(2)} MB`;
  // Like for like with the release: each tool's own input and output schema, no union of releases, async or errors.
  const sameShape = (profile: Profile, entries: readonly ToolsListEntry[]): number => {
    const serves32 = servedReleases(profile, releases).includes(r32);
    return bytes(
      entries.map((e) => {
        const release = serves32 && r32.tools.has(e.name) ? r32 : releases[1]!;
        const { schema } = sources.document(release, release.tools.get(e.name)!, 'output', 'structural');
        return { ...e, outputSchema: { ...e.inputSchema, schema } };
      }),
    );
  };

  const lines: string[] = ['tools/list bytes (endpoint list; 3.2 + 3.0.6 for the example profiles):'];
  for (const profile of [...examples, production32, all32]) {
    const structural = endpoint(profile, 'structural', false);
    const base = production(structural);
    const like = sameShape(profile, structural);
    lines.push(
      `  ${profile.name} (${structural.length} tools): as served by default (structural, no outputSchema) ${mb(bytes(structural))}; ` +
        `same shape as the release (input + output): structural ${mb(like)} = ${(like / base).toFixed(2)}× the release's production projection (${mb(base)}); ` +
        `full, no outputSchema ${mb(bytes(endpoint(profile, 'full', false)))}; outputSchema on: structural ${mb(bytes(endpoint(profile, 'structural', true)))}, full ${mb(bytes(endpoint(profile, 'full', true)))}`,
    );
  }

  lines.push('Client.listTools() over Streamable HTTP (official @modelcontextprotocol/sdk client; default: median of 3, with outputSchema: one run):');
  const { serveTools } = await listServer();
  for (const profile of examples) {
    const now = await timeListTools(serveTools, endpoint(profile, 'structural', false));
    // Seconds each: one round (the client compiles every output schema with Ajv).
    const withOutput = await timeListTools(serveTools, endpoint(profile, 'structural', true), 1);
    const before = await timeListTools(serveTools, endpoint(profile, 'full', true), 1);
    lines.push(
      `  ${profile.name}: structural, no outputSchema (default) ${now.toFixed(0)} ms vs full with outputSchema ${before.toFixed(0)} ms → ${(before / now).toFixed(1)}× faster; ` +
        `structural with outputSchema ${withOutput.toFixed(0)} ms`,
    );
  }
  return lines;
}

/**
 * A real MCP server answering tools/list with the given entries over Streamable HTTP (stateless, JSON responses, as
 * the product's entry serves it), and nothing else: what is measured is the client reading the list.
 */
async function listServer(): Promise<{ serveTools: (entries: readonly ToolsListEntry[]) => Promise<{ url: string; close(): Promise<void> }> }> {
  return {
    serveTools: async (entries) => {
      const tools = entries.map(toolsListJson);
      const http = createServer((req, res) => {
        const server = new Server({ name: 'bench', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools as never }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => void Promise.all([transport.close(), server.close()]));
        void server.connect(transport).then(() => transport.handleRequest(req, res));
      });
      // The client compiles each list's schemas before its next request on the same socket: keep it open meanwhile.
      http.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      const { port } = http.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}/mcp`,
        close: () =>
          new Promise<void>((resolve) => {
            http.close(() => resolve());
            http.closeIdleConnections();
          }),
      };
    },
  };
}

async function timeListTools(
  serveTools: (entries: readonly ToolsListEntry[]) => Promise<{ url: string; close(): Promise<void> }>,
  entries: readonly ToolsListEntry[],
  rounds = 3,
): Promise<number> {
  const served = await serveTools(entries);
  const times: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      // A fresh client each time: nothing compiled or cached from the previous round.
      const client = new Client({ name: 'bench-buyer', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      const t = performance.now();
      const { tools } = await client.listTools();
      times.push(performance.now() - t);
      if (tools.length !== entries.length) throw new Error('bench/advertise: listTools returned a different list');
      await client.close();
    }
  } finally {
    await served.close();
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}
