import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyTool } from './helpers/tiny-tool.js';

/**
 * A discriminated union whose discriminator the caller left out (runtime/issues/union-arms.ts choosePick): the arm
 * probed first, and counted nearer, is the one declaring the caller's fields — an open arm that does not declare
 * them would have the deep-strip drop them, which is no nearer than fixing them where they belong.
 */
const id = (p: string) => `/schemas/9.1.0/${p}`;
const asset = (type: string, props: Record<string, unknown>, required: string[]) => ({ type: 'object', properties: { asset_type: { const: type }, ...props }, required: ['asset_type', ...required] });
const files = {
  'media-buy/make-thing-request.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('media-buy/make-thing-request.json'),
    type: 'object',
    required: ['thing', 'asset'],
    properties: {
      thing: { $ref: '../core/thing.json' },
      asset: {
        oneOf: [
          asset('url', { url: { type: 'string' } }, ['url']),
          asset('image', { url: { type: 'string' }, width: { type: 'integer' } }, ['url', 'width']),
          asset('text', { content: { type: 'string' }, language: { type: 'string' } }, ['content']),
          asset('brief', { name: { type: 'string' }, objective: { type: 'string' }, tone: { type: 'string' } }, ['name']),
        ],
      },
    },
  },
};
const { issues: issuesOf, named, dispose } = tinyTool(files, 'make_thing');

test('the arm declaring the caller\'s fields, not the first open one needing as few fixes', () => {
  // `url` needs one fix (`url`) and keeps `content` only by ignoring it; `text` needs `content` to be a string.
  assert.equal(named({ thing: { id: 't' }, asset: { content: 5 } }).slice(0, 2), ['required /asset/asset_type', 'type /asset/content']);
  // The brief's own fields, its `name` missing: the last of four arms, probed first.
  assert.equal(named({ thing: { id: 't' }, asset: { objective: 'o', tone: 't' } }).slice(0, 2), ['required /asset/asset_type', 'required /asset/name']);
});

test('an arm that takes the caller\'s fields as they are is chosen; one a fix away named as another shape, no other', () => {
  const issues = issuesOf({ thing: { id: 't' }, asset: { url: 'u' } });
  assert.equal(issues.map((i) => `${i.keyword} ${i.pointer}`), ['required /asset/asset_type', 'required /asset/width']);
  assert.match(issues[1]!.message, /in another shape \/asset may take$/);
});

test.after(dispose);

test.run();
