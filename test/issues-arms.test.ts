import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyTool } from './helpers/tiny-tool.js';

/**
 * Choosing an undiscriminated union's arm (runtime/issues/union-arms.ts chooseArm): the caller's fields an arm does not
 * declare count against it (the generator lists each arm's names, generator/compile/validators/unions.ts), fields a
 * `not` forbids are the caller's data dropped, and a repaired enum inside an array takes a value the other items do
 * not hold (repair.ts), so a `uniqueItems` array does not lose the arm.
 */
const id = (p: string) => `/schemas/9.1.0/${p}`;
const files = {
  'core/listing.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('core/listing.json'),
    type: 'object',
    required: ['listings'],
    properties: {
      status: { type: 'string' },
      listings: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'size'],
          properties: {
            name: { type: 'string' },
            size: { type: 'integer' },
            metrics: { type: 'array', uniqueItems: true, items: { enum: ['clicks', 'views', 'reach'] } },
          },
        },
      },
    },
  },
  'core/notice.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('core/notice.json'),
    type: 'object',
    required: ['notice'],
    properties: { status: { type: 'string' }, notice: { type: 'string' } },
  },
  'core/asset.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('core/asset.json'),
    type: 'object',
    required: ['text'],
    properties: { text: { type: 'string' } },
  },
  'media-buy/make-thing-request.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('media-buy/make-thing-request.json'),
    type: 'object',
    required: ['thing'],
    properties: {
      thing: { $ref: '../core/thing.json' },
      result: { anyOf: [{ $ref: '../core/listing.json' }, { $ref: '../core/notice.json' }] },
      slots: { type: 'object', additionalProperties: { oneOf: [{ $ref: '../core/asset.json' }, { type: 'array', items: { $ref: '../core/asset.json' } }] } },
      plan: {
        type: 'object',
        properties: { lines: { type: 'array', items: { type: 'object', properties: { cap: { type: 'number' }, floor: { type: 'number' } } } }, shared: { type: 'boolean' } },
        anyOf: [
          { properties: { lines: { items: { not: { required: ['floor'] } } } } },
          { required: ['shared'] },
        ],
      },
    },
  },
};
const { named, dispose } = tinyTool(files, 'make_thing');

test('the arm declaring the caller\'s data, though another open arm needs fewer fixes', () => {
  // The notice shape needs one fix (`notice`) and would drop `listings` whole; the listing shape needs three.
  const result = { status: 'done', listings: [{ name: 'a', size: 'big' }, { name: 'b' }, { size: 2 }] };
  assert.equal(named({ thing: { id: 't' }, result }), ['type /result/listings/0/size', 'required /result/listings/1/size', 'required /result/listings/2/name', 'anyOf /result']);
});

test('an enum repaired inside a uniqueItems array takes a value no other item holds: the arm is not lost', () => {
  // `metrics/2` repaired to `clicks`, the first allowed value, would duplicate item 0 and fail `uniqueItems`.
  const result = { listings: [{ name: 'a', size: 1, metrics: ['clicks', 'views', 'likes'] }, { name: 'b' }] };
  assert.equal(named({ thing: { id: 't' }, result }), ['enum /result/listings/0/metrics/2', 'required /result/listings/1/size', 'anyOf /result']);
});

test('fields a `not` forbids count as the caller\'s data dropped: the arm keeping them wins a tie', () => {
  // The first shape forbids a line's `floor` (one fix, dropping it); the second needs `shared` (one fix, dropping nothing).
  assert.equal(named({ thing: { id: 't' }, plan: { lines: [{ cap: 1, floor: 2 }] } }), ['required /plan/shared', 'anyOf /plan']);
});

test('a union summary met again after a run\'s earlier defects were got past does not end the collection', () => {
  // Each slot is one asset or a list of them; the list's items' defects come one run at a time, the slot's union
  // summary with each: the second slot's defect is still named.
  const slots = { a: [{ text: 5 }, {}], b: [{ text: 6 }] };
  assert.equal(named({ thing: { id: 't' }, slots }), ['type /slots/a/0/text', 'oneOf /slots/a', 'required /slots/a/1/text', 'type /slots/b/0/text', 'oneOf /slots/b']);
});

test.after(dispose);

test.run();
