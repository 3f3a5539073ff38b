import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';
import { tempDir, tinyRelease, writeTree } from './fixture-release.js';
import { repoRoot } from './releases.js';

/**
 * A generated set over the tiny fixture release for signed governance, in an agent repository with its dependencies
 * beside it. The release gives `make_thing` (mutating) AdCP's governed-task envelope — `idempotency_key`, `account`,
 * a monetary `budget`, `governance_context`, `context` — `check_governance` a governance agent's request (intent and
 * execution shapes), and its capabilities schema AdCP 3.2's `adcp.governance_enforcement`. Profiles:
 * - `gov-seller`: enforces signed_context on make_thing, a replay window;
 * - `gov-seller-online`: signed_context + online_execution_check on create_media_buy;
 * - `gov-agent`: a governance agent (serves check_governance; a sandbox surface);
 * - `gov-seller-bad-mode`, `gov-seller-twice`: what does not start.
 * Generated once per process; the set's directory is returned.
 */
let generated: Promise<string> | undefined;

export function governanceSet(): Promise<string> {
  generated ??= (async () => {
    const id = (p: string): string => `/schemas/9.1.0/${p}`;
    const schema = (p: string, body: Record<string, unknown>) => ({ [p]: { $schema: 'http://json-schema.org/draft-07/schema#', $id: id(p), ...body } });
    const caps = JSON.parse(readFileSync(join(tinyRelease(), 'protocol/caps-response.json'), 'utf8')) as { properties: Record<string, Record<string, unknown>> };
    caps.properties.adcp!.properties = {
      major_versions: { type: 'array', items: { type: 'integer' } },
      idempotency: { type: 'object' },
      governance_enforcement: {
        type: 'object',
        properties: { tasks: { type: 'array', items: { type: 'object', required: ['task', 'modes'], properties: { task: { type: 'string' }, modes: { type: 'array', items: { type: 'string' } } } } } },
      },
    };
    caps.properties.supported_protocols = { type: 'array', items: { enum: ['media_buy', 'signals', 'governance'] } };
    const manifest = JSON.parse(readFileSync(join(tinyRelease(), 'manifest.json'), 'utf8')) as { tools: Record<string, unknown> };
    const governed = (p: string) => ({ protocol: 'media-buy', mutating: true, request_schema: p, response_schema: 'media-buy/make-thing-response.json', summary: 'A governed commitment.' });
    manifest.tools.make_thing = governed('media-buy/governed-request.json');
    manifest.tools.create_media_buy = governed('media-buy/governed-request.json');
    manifest.tools.check_governance = { protocol: 'governance', mutating: false, request_schema: 'governance/check-request.json', response_schema: 'governance/check-response.json', summary: 'Check governance.' };
    const money = { type: 'object', required: ['amount', 'currency'], properties: { amount: { type: 'number', minimum: 0 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } } };
    const release = tinyRelease({
      'manifest.json': manifest,
      'protocol/caps-response.json': { ...caps, $id: id('protocol/caps-response.json') },
      ...schema('media-buy/governed-request.json', {
        type: 'object',
        required: ['idempotency_key', 'account', 'budget'],
        properties: {
          idempotency_key: { type: 'string', minLength: 16 },
          account: { type: 'object', properties: { account_id: { type: 'string' } }, required: ['account_id'] },
          budget: money,
          media_buy_id: { type: 'string' },
          note: { type: 'string' },
          governance_context: { type: 'string', maxLength: 4096 },
          context: { type: 'object' },
        },
      }),
      ...schema('media-buy/make-thing-response.json', { type: 'object', properties: { thing: { $ref: id('core/thing.json') }, media_buy_id: { type: 'string' } } }),
      ...schema('governance/check-request.json', {
        type: 'object',
        required: ['caller'],
        properties: {
          caller: { type: 'string' },
          plan_id: { type: 'string' },
          tool: { type: 'string' },
          payload: { type: 'object' },
          target_agent: { type: 'string' },
          governance_context: { type: 'string' },
          phase: { enum: ['purchase', 'modification', 'delivery'] },
          planned_delivery: { type: 'object' },
          execution_commitment: money,
          context: { type: 'object' },
        },
      }),
      ...schema('governance/check-response.json', { type: 'object' }),
    });
    const enforce = (tasks: unknown[]) => ({ adcp: { major_versions: [9], idempotency: { supported: true, replay_ttl_seconds: 86400 }, governance_enforcement: { tasks } }, supported_protocols: ['media_buy'] });
    const seller = (name: string, tasks: unknown[]) => ({ name, tools: ['get_adcp_capabilities', 'make_thing', 'create_media_buy'], capabilities: enforce(tasks) });
    const work = writeTree(
      {
        'package.json': { name: 'agent', private: true, type: 'module' },
        'profiles/seller.json': seller('gov-seller', [{ task: 'make_thing', modes: ['signed_context'] }]),
        'profiles/online.json': seller('gov-seller-online', [{ task: 'create_media_buy', modes: ['signed_context', 'online_execution_check'] }]),
        'profiles/bad-mode.json': seller('gov-seller-bad-mode', [{ task: 'make_thing', modes: ['online_execution_check'] }]),
        'profiles/twice.json': seller('gov-seller-twice', [{ task: 'make_thing', modes: ['signed_context'] }, { task: 'make_thing', modes: ['signed_context'] }]),
        'profiles/agent.json': {
          name: 'gov-agent',
          surface: 'sandbox',
          tools: ['get_adcp_capabilities', 'check_governance'],
          capabilities: { adcp: { major_versions: [9], idempotency: { supported: true, replay_ttl_seconds: 86400 } }, supported_protocols: ['governance'] },
        },
        'adcp-codegen.config.json': { releases: [release], profiles: ['profiles/*.json'], out: 'generated' },
      },
      tempDir('adcp-governance-set-'),
    );
    symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
    const run = await runCli(['generate'], work);
    if (run.code !== 0) throw new Error(`the governance test set did not generate: ${run.stderr}`);
    return join(work, 'generated');
  })();
  return generated;
}
