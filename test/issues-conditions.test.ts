import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyTool } from './helpers/tiny-tool.js';

/**
 * Conditions that switch on a property their object requires (comply_test_controller's `scenario`;
 * generator/compile/validators/conditions.ts): without the property every `if` passes and every `then` applies, so
 * Ajv's first failure is a branch's — but the caller's defect is the missing property, which the reply names.
 */
const id = (p: string) => `/schemas/9.1.0/${p}`;
const when = (mode: string, needs: string[]) => ({ if: { properties: { mode: { const: mode } } }, then: { required: ['params'], properties: { params: { required: needs } } } });
const files = {
  'media-buy/make-thing-request.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('media-buy/make-thing-request.json'),
    type: 'object',
    required: ['mode', 'thing'],
    properties: { mode: { type: 'string' }, thing: { $ref: '../core/thing.json' }, params: { type: 'object' } },
    allOf: [when('pause', ['reason']), when('resume', ['at', 'reason'])],
  },
};
const { issues, named, said, dispose } = tinyTool(files, 'make_thing');

test('a missing switch is named by the object\'s own required, not by the branches it left applying', () => {
  assert.equal(named({}).slice(0, 2), ['required /mode', 'required /thing']);
  assert.equal(named({ thing: { id: 't' }, params: {} })[0], 'required /mode');
  const first = issues({ thing: { id: 't' } })[0];
  assert.equal([first?.schema_id, first?.schemaPath], ['/schemas/9.1.0/media-buy/make-thing-request.json', '#/required']);
});

test('then what each value of the missing switch would require, once, with the values that require it, after the caller\'s other defects', () => {
  assert.equal(said({}), ['required /mode: is required', 'required /thing: is required', 'required /params: is required, when mode is one of "pause", "resume"']);
  assert.equal(said({ thing: { id: 't' }, params: {} }), [
    'required /mode: is required',
    'required /params/reason: is required, when mode is one of "pause", "resume"',
    'required /params/at: is required, when mode is "resume"',
  ]);
  // A value the caller's params already satisfy asks for nothing; the other still names what it lacks.
  assert.equal(said({ thing: { id: 't' }, params: { reason: 'r' } }), ['required /mode: is required', 'required /params/at: is required, when mode is "resume"']);
  // The caller's other defect comes first, even found after the switch.
  assert.equal(said({ thing: {}, params: {} })[1], 'required /thing/id: is required');
});

test('with the switch there, its branch is the caller\'s: each requirement it has is named', () => {
  assert.equal(named({ mode: 'resume', thing: { id: 't' }, params: {} }), ['required /params/at', 'required /params/reason']);
  assert.equal(named({ mode: 'pause', thing: { id: 't' } }), ['required /params']);
  assert.equal(named({ mode: 'pause', thing: { id: 't' }, params: { reason: 'r' } }), []);
});

test('a switch value its property refuses takes no branch: what each value would require is named as for a missing one', () => {
  assert.equal(said({ mode: 7, thing: { id: 't' }, params: {} }), [
    'type /mode: must be string',
    'required /params/reason: is required, when mode is one of "pause", "resume"',
    'required /params/at: is required, when mode is "resume"',
  ]);
  // A string no condition tests is the schema's to accept (`mode` is any string here): nothing is asked.
  assert.equal(named({ mode: 'stop', thing: { id: 't' }, params: {} }), []);
});

test.after(dispose);

test.run();
