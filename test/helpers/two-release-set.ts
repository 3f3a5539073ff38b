import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';
import { tempDir, tinyRelease, writeTree } from './fixture-release.js';
import { repoRoot } from './releases.js';

/**
 * A generated set serving two releases of the tiny fixture, 9.2 and 9.1, whose `get_things` differ the way AdCP 3.2's
 * get_products differs from 3.0's: 9.2 requires a `mode` in the request, and its response requires `things` and
 * `cache_scope` — stated, as AdCP states it, in an `if`/`then`/`else` — unless it is a typed `rejected` answer,
 * which requires a `reason`; 9.1's make_thing carries the thing's own state in `status`, which 9.2 moved to
 * `thing_status` (as 3.2 moved the media buy's to `media_buy_status`), keeping `status` for the task status; 9.1's
 * get_things request says `sort` where 9.2 says `order`; 9.2's thing (closed in both) has a `label` 9.1's lacks. The
 * conversion rules between them are the fixture's own (`CONVERSIONS`). Generated once per process into a temporary
 * agent directory (a second of work), so the tests need neither shared/ nor the committed generated/.
 */
let pending: Promise<string> | undefined;

export function twoReleaseSet(): Promise<string> {
  pending ??= build();
  return pending;
}

async function build(): Promise<string> {
  const id = (p: string): string => `/schemas/9.2.0/${p}`;
  // 9.1's make_thing says the thing's own state in `status`, as AdCP 3.0's create_media_buy does the media buy's.
  const v91 = tinyRelease(
    {
      'media-buy/get-things-request.json': {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: '/schemas/9.1.0/media-buy/get-things-request.json',
        type: 'object',
        properties: { limit: { type: 'integer' }, sort: { type: 'string', enum: ['name', 'newest'] } },
      },
      'media-buy/make-thing-response.json': {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: '/schemas/9.1.0/media-buy/make-thing-response.json',
        type: 'object',
        properties: { thing: { $ref: '/schemas/9.1.0/core/thing.json' }, status: { type: 'string', enum: ['pending', 'active', 'completed'] } },
      },
    },
    '9.1.0',
  );
  const v92 = tinyRelease(
    {
      'media-buy/get-things-request.json': {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: id('media-buy/get-things-request.json'),
        type: 'object',
        properties: {
          limit: { type: 'integer' },
          mode: { type: 'string', enum: ['brief', 'wholesale'] },
          context: { type: 'object' },
          // For rejection messages (test/issue-collect.test.ts): several independent problems, and two kinds of `not`.
          pacing: { type: 'string', enum: ['even', 'asap'] },
          start: { type: 'string', format: 'date-time' },
          brand: { type: 'object', required: ['domain'], properties: { domain: { type: 'string', minLength: 3 } } },
          channel: { type: 'string', not: { const: 'print' } },
          order: { type: 'string', enum: ['name', 'newest'] },
        },
        required: ['mode'],
        not: { anyOf: [{ required: ['legacy_filter'] }, { required: ['old_mode'] }] },
      },
      'media-buy/get-things-response.json': {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: id('media-buy/get-things-response.json'),
        type: 'object',
        properties: {
          things: { type: 'array', items: { $ref: id('core/thing.json') } },
          cache_scope: { type: 'string', enum: ['public', 'account'] },
          reason: { type: 'string' },
          status: { type: 'string', enum: ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown'] },
          adcp_version: { type: 'string' },
          context: { type: 'object' },
        },
        if: { properties: { status: { const: 'rejected' } }, required: ['status'] },
        then: { required: ['reason'] },
        else: { required: ['things', 'cache_scope'] },
      },
      'core/thing.json': {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: id('core/thing.json'),
        type: 'object',
        properties: { id: { type: 'string' }, label: { type: 'string' } },
        required: ['id'],
        additionalProperties: false,
      },
      'media-buy/make-thing-response.json': {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: id('media-buy/make-thing-response.json'),
        type: 'object',
        properties: {
          thing: { $ref: id('core/thing.json') },
          thing_status: { type: 'string', enum: ['pending', 'active', 'completed'] },
          status: { type: 'string', enum: ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown'] },
          adcp_version: { type: 'string' },
          context: { type: 'object' },
        },
      },
    },
    '9.2.0',
  );
  const work = tempDir('adcp-codegen-two-releases-');
  writeTree(
    {
      'package.json': { name: 'agent', private: true, type: 'module' },
      'profiles/things.json': {
        name: 'things-seller',
        tools: ['get_adcp_capabilities', 'get_things', 'make_thing'],
        capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] },
        releases: ['9.2', '9.1'],
      },
      'conversions/things.json': CONVERSIONS,
      'adcp-codegen.config.json': { releases: [v92, v91], profiles: ['profiles/*.json'], conversions: ['conversions/*.json'], out: 'generated' },
    },
    work,
  );
  // An agent repository has its MCP SDK installed; the generated runtime resolves it from there.
  symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
  const run = await runCli(['generate'], work);
  if (run.code !== 0) throw new Error(`generating the two-release fixture set failed:\n${run.stderr}`);
  return join(work, 'generated');
}

/** The fixture's conversion rules between 9.2 and 9.1, in the shipped rules' format (schemas/conversion.schema.json). */
export const CONVERSIONS = {
  newer: '9.2',
  older: '9.1',
  responses: [
    {
      id: 'task-status-completed',
      summary: "9.1's make_thing status is the thing's state: a synchronous answer's task status has no place there.",
      tools: ['make_thing'],
      newer: 'media-buy/make-thing-response.json#/properties/status',
      older: 'media-buy/make-thing-response.json#/properties/status',
      transform: { kind: 'drop', values: ['completed'], reason: "9.1 carries the thing's state in status" },
    },
    {
      id: 'thing_status-to-status',
      newer: 'media-buy/make-thing-response.json#/properties/thing_status',
      older: 'media-buy/make-thing-response.json#/properties/status',
      unless: { status: ['submitted', 'working', 'input-required'] },
      transform: { kind: 'rename' },
    },
  ],
  requests: [
    {
      id: 'sort-to-order',
      newer: 'media-buy/get-things-request.json#/properties/order',
      older: 'media-buy/get-things-request.json#/properties/sort',
      transform: { kind: 'rename' },
    },
  ],
} as const;
