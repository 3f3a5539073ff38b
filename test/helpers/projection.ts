import { projectSchemaForCapabilities } from '../../generator/project/index.js';
import type { JsonObject, JsonSchema, JsonSchemaObject } from '../../generator/load/index.js';

/**
 * Projection fixtures, shaped like AdCP's MCP bundles: the tool's schema at the root, every other file under
 * `$defs["external:<path>"]`, refs like `#/$defs/external:pricing-options~1cpm-option.json`.
 */

export const AUCTION = { delivery_types: ['non_guaranteed'] };
export const GUARANTEED: JsonObject = { media_buy: { supported_delivery_types: ['guaranteed'] } };
export const NON_GUARANTEED: JsonObject = { media_buy: { supported_delivery_types: ['non_guaranteed'] } };

export type Obj = Record<string, unknown>;

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export function project(schema: unknown, capabilities: JsonObject = GUARANTEED, options = {}): Obj {
  return projectSchemaForCapabilities(schema as JsonSchema, capabilities, options) as Obj;
}

export function at(doc: unknown, path: string): Obj {
  let node = doc as Obj;
  for (const token of path.split('|')) node = node[token] as Obj;
  return node;
}

/** An object schema with one annotated optional property `floor_price` and a plain one `currency`. */
export function pricing(extra: Obj = {}): Obj {
  return {
    type: 'object',
    properties: {
      currency: { type: 'string' },
      floor_price: { type: 'number', minimum: 0, 'x-adcp-applies-when': AUCTION },
    },
    ...extra,
  };
}

export function bundle(): JsonSchemaObject {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://adcontextprotocol.org/schemas/3.2.0-beta.5/mcp/2026-07-28/media-buy/get-products-response.json',
    type: 'object',
    properties: {
      products: { type: 'array', items: { $ref: '#/$defs/external:core~1product.json' } },
    },
    required: ['products'],
    additionalProperties: true,
    $defs: {
      'external:core/product.json': {
        type: 'object',
        properties: {
          product_id: { type: 'string' },
          pricing_options: { type: 'array', items: { $ref: '#/$defs/external:core~1pricing-option.json' } },
          trusted_match: {
            type: 'object',
            properties: { context_match: { type: 'boolean', default: true } },
            'x-adcp-applies-when': { capabilities: ['media_buy.execution.trusted_match'] },
          },
        },
        required: ['product_id', 'pricing_options'],
      },
      'external:core/pricing-option.json': {
        oneOf: [{ $ref: '#/$defs/external:pricing-options~1cpm-option.json' }, { $ref: '#/$defs/external:pricing-options~1flat-rate-option.json' }],
      },
      'external:pricing-options/cpm-option.json': {
        type: 'object',
        properties: {
          pricing_option_id: { type: 'string' },
          pricing_model: { type: 'string', const: 'cpm' },
          currency: { type: 'string', examples: ['USD'] },
          floor_price: { type: 'number', minimum: 0, 'x-adcp-applies-when': AUCTION },
          price_guidance: { $ref: '#/$defs/external:pricing-options~1price-guidance.json', 'x-adcp-applies-when': AUCTION },
        },
        required: ['pricing_option_id', 'pricing_model', 'currency'],
        additionalProperties: true,
      },
      'external:pricing-options/flat-rate-option.json': {
        type: 'object',
        properties: {
          pricing_model: { type: 'string', const: 'flat_rate' },
          floor_price: { type: 'number', 'x-adcp-applies-when': AUCTION },
        },
        required: ['pricing_model'],
      },
      'external:pricing-options/price-guidance.json': {
        type: 'object',
        properties: { p50: { type: 'number' } },
      },
      'external:enums/delivery-type.json': { type: 'string', enum: ['guaranteed', 'non_guaranteed'] },
    },
  };
}
