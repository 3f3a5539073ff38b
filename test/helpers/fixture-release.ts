import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './temp.js';

export { tempDir };

/** Writes `files` (path → JSON value or raw text) under a new temporary directory and returns it. */
export function writeTree(files: Record<string, unknown>, root = tempDir()): string {
  for (const [path, value] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  }
  return root;
}

/**
 * A tiny release in the published layout, with rooted `$id`s like AdCP 3.0 (`/schemas/9.1.0/...`): two tools over a
 * shared definition. Tests override single files to make it bad in one precise way.
 */
export function tinyRelease(overrides: Record<string, unknown> = {}, version = '9.1.0'): string {
  const id = (p: string): string => `/schemas/${version}/${p}`;
  const files: Record<string, unknown> = {
    'manifest.json': {
      adcp_version: version,
      tools: {
        get_adcp_capabilities: { protocol: 'protocol', mutating: false, request_schema: 'protocol/caps-request.json', response_schema: 'protocol/caps-response.json', summary: 'Capabilities.' },
        get_things: { protocol: 'media-buy', mutating: false, request_schema: 'media-buy/get-things-request.json', response_schema: 'media-buy/get-things-response.json', summary: 'List things.' },
        make_thing: { protocol: 'media-buy', mutating: true, request_schema: 'media-buy/make-thing-request.json', response_schema: 'media-buy/make-thing-response.json', summary: 'Make a thing.' },
        get_signals: { protocol: 'signals', mutating: false, request_schema: 'media-buy/get-things-request.json', response_schema: 'media-buy/get-things-response.json' },
        comply_test_controller: { protocol: 'compliance', mutating: true, request_schema: 'media-buy/get-things-request.json', response_schema: 'media-buy/get-things-response.json' },
      },
    },
    'protocol/caps-request.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('protocol/caps-request.json'), type: 'object' },
    'protocol/caps-response.json': {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: id('protocol/caps-response.json'),
      type: 'object',
      required: ['adcp', 'supported_protocols'],
      properties: {
        adcp: { type: 'object', required: ['major_versions'], properties: { major_versions: { type: 'array', items: { type: 'integer' } } } },
        supported_protocols: { type: 'array', items: { enum: ['media_buy', 'signals'] } },
        media_buy: { type: 'object', properties: { lifecycle_tools: { type: 'array', items: { type: 'string' } } } },
      },
    },
    'core/thing.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('core/thing.json'), type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
    'media-buy/get-things-request.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('media-buy/get-things-request.json'), type: 'object', properties: { limit: { type: 'integer' } } },
    'media-buy/get-things-response.json': {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: id('media-buy/get-things-response.json'),
      type: 'object',
      properties: { things: { type: 'array', items: { $ref: id('core/thing.json') } } },
    },
    'media-buy/make-thing-request.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('media-buy/make-thing-request.json'), type: 'object', properties: { thing: { $ref: '../core/thing.json' } }, required: ['thing'] },
    'media-buy/make-thing-response.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('media-buy/make-thing-response.json'), type: 'object', properties: { thing: { $ref: id('core/thing.json') } } },
    ...overrides,
  };
  for (const [k, v] of Object.entries(files)) if (v === undefined) delete files[k];
  return writeTree(files);
}
