import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';
import { tempDir, writeTree } from './fixture-release.js';
import { repoRoot } from './releases.js';

/**
 * A generated set over a fixture release with batch tools shaped like AdCP's sync tasks (issue 19 point 2), for
 * tests that need no ../shared: `sync_things` (rows `things[]` with `action: "failed"` and `errors`, answering the
 * request's `things[]`, an inline item schema), `sync_widgets` (items by `$ref`, rows with `status: "failed"`, only
 * in `validation_mode: "lenient"`), and `sync_gadgets`, whose rows require a `request_index` the request does not
 * carry — so it has no per-item outcomes at all. Its schemas' `$id`s are a vendor's, not AdCP's published ones:
 * production keeps `schema_id` to development there. Generated once per process.
 */
let pending: Promise<string> | undefined;

export const BATCH_ID_BASE = 'https://vendor.example/adcp/schemas/9.3.0/';

export function batchSet(): Promise<string> {
  pending ??= build();
  return pending;
}

const DRAFT = 'http://json-schema.org/draft-07/schema#';
const id = (p: string): string => `${BATCH_ID_BASE}${p}`;
const doc = (path: string, schema: Record<string, unknown>) => ({ [path]: { $schema: DRAFT, $id: id(path), ...schema } });
const errors = { type: 'array', items: { $ref: id('core/error.json') } };

function release(): string {
  const tools = (name: string, file: string) => ({
    protocol: 'media-buy',
    mutating: true,
    request_schema: `media-buy/${file}-request.json`,
    response_schema: `media-buy/${file}-response.json`,
    summary: `${name}.`,
  });
  return writeTree({
    'manifest.json': {
      adcp_version: '9.3.0',
      tools: {
        get_adcp_capabilities: { protocol: 'protocol', mutating: false, request_schema: 'protocol/caps-request.json', response_schema: 'protocol/caps-response.json', summary: 'Capabilities.' },
        sync_things: tools('Sync things', 'sync-things'),
        sync_widgets: tools('Sync widgets', 'sync-widgets'),
        sync_gadgets: tools('Sync gadgets', 'sync-gadgets'),
      },
    },
    ...doc('protocol/caps-request.json', { type: 'object' }),
    ...doc('protocol/caps-response.json', {
      type: 'object',
      required: ['adcp', 'supported_protocols'],
      properties: {
        adcp: { type: 'object', required: ['major_versions'], properties: { major_versions: { type: 'array', items: { type: 'integer' } } } },
        supported_protocols: { type: 'array', items: { enum: ['media_buy'] } },
      },
    }),
    ...doc('core/error.json', {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' }, recovery: { enum: ['transient', 'correctable', 'terminal'] }, issues: { type: 'array' } },
    }),
    ...doc('core/brand-ref.json', { type: 'object', required: ['domain'], properties: { domain: { type: 'string', pattern: '^[a-z0-9.-]+$' } }, additionalProperties: false }),
    ...doc('core/widget.json', { type: 'object', required: ['widget_id'], properties: { widget_id: { type: 'string' }, size: { type: 'integer', minimum: 1 } } }),
    ...doc('enums/validation-mode.json', { type: 'string', enum: ['strict', 'lenient'] }),
    ...doc('media-buy/sync-things-request.json', {
      type: 'object',
      required: ['idempotency_key', 'things'],
      properties: {
        idempotency_key: { type: 'string', minLength: 8 },
        dry_run: { type: 'boolean' },
        context: { type: 'object' },
        things: {
          type: 'array',
          maxItems: 5,
          items: {
            type: 'object',
            required: ['thing_id', 'brand'],
            properties: {
              thing_id: { type: 'string', pattern: '^[a-z0-9_]+$' },
              brand: { $ref: id('core/brand-ref.json') },
              kind: { type: 'string', enum: ['a', 'b'] },
              agents: { type: 'array', maxItems: 1, items: { type: 'string' } },
              notification_configs: { type: 'array', items: { type: 'object', properties: { event_types: { type: 'array', items: { enum: ['thing.changed'] } } } } },
            },
          },
        },
      },
    }),
    ...doc('media-buy/sync-things-response.json', {
      type: 'object',
      oneOf: [
        {
          type: 'object',
          required: ['things'],
          properties: {
            things: {
              type: 'array',
              items: {
                type: 'object',
                required: ['thing_id', 'brand', 'action'],
                properties: { thing_id: { type: 'string' }, brand: { $ref: id('core/brand-ref.json') }, action: { enum: ['created', 'updated', 'unchanged', 'failed'] }, errors },
              },
            },
          },
          not: { required: ['errors'] },
        },
        { type: 'object', required: ['errors'], properties: { errors: { ...errors, minItems: 1 } }, not: { required: ['things'] } },
      ],
    }),
    ...doc('media-buy/sync-widgets-request.json', {
      type: 'object',
      required: ['widgets'],
      properties: {
        widgets: { type: 'array', minItems: 1, items: { $ref: id('core/widget.json') } },
        validation_mode: { $ref: id('enums/validation-mode.json'), default: 'strict', description: "'strict' fails the entire sync on any validation error; 'lenient' processes valid widgets and reports errors." },
      },
    }),
    ...doc('media-buy/sync-widgets-response.json', {
      type: 'object',
      required: ['widgets'],
      properties: {
        widgets: { type: 'array', items: { type: 'object', required: ['widget_id', 'status'], properties: { widget_id: { type: 'string' }, status: { enum: ['synced', 'failed'] }, errors } } },
      },
    }),
    ...doc('media-buy/sync-gadgets-request.json', {
      type: 'object',
      required: ['gadgets'],
      properties: { gadgets: { type: 'array', items: { type: 'object', required: ['gadget_id'], properties: { gadget_id: { type: 'string' }, size: { type: 'integer' } } } } },
    }),
    ...doc('media-buy/sync-gadgets-response.json', {
      type: 'object',
      required: ['gadgets'],
      properties: {
        gadgets: {
          type: 'array',
          items: { type: 'object', required: ['request_index', 'gadget_id', 'status'], properties: { request_index: { type: 'integer' }, gadget_id: { type: 'string' }, status: { enum: ['ok', 'failed'] }, errors } },
        },
      },
    }),
  });
}

async function build(): Promise<string> {
  const work = tempDir('adcp-codegen-batch-');
  writeTree(
    {
      'package.json': { name: 'agent', private: true, type: 'module' },
      'profiles/batch.json': {
        name: 'batch-seller',
        tools: ['get_adcp_capabilities', 'sync_things', 'sync_widgets', 'sync_gadgets'],
        capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] },
      },
      'adcp-codegen.config.json': { releases: [release()], profiles: ['profiles/*.json'], out: 'generated' },
    },
    work,
  );
  symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
  const run = await runCli(['generate'], work);
  if (run.code !== 0) throw new Error(`generating the batch fixture set failed:\n${run.stderr}`);
  return join(work, 'generated');
}
