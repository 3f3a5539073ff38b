import { Ajv } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkToolsLists } from '../generator/emit/index.js';
import { refusedEnvelopeFields, objectRooted, PRESENTATION_ANNOTATIONS, structural } from '../generator/project/index.js';
import { CodegenError } from '../generator/shared/index.js';
import { loadRelease, type JsonSchemaObject } from '../generator/load/index.js';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { setAt } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { symlinkSync } from 'node:fs';
import { expectWarnings, warningsSeen } from './helpers/warnings.js';

// The warning this file provokes on purpose (test/helpers/warnings.ts): a production body that fails its schema, the
// pointers in the server's log only.
const BAD_BODY = /make_thing: the agent's response does not match the AdCP 9\.1 response schema: .*"pointer":"\/id"/;
expectWarnings(BAD_BODY);

const S = (v: Record<string, unknown>): JsonSchemaObject => v as JsonSchemaObject;

test('objectRooted adds "type": "object" exactly where the schema already forces an object', () => {
  const viaAllOf = S({ $schema: 'x', $id: 'y', allOf: [{ $ref: '#/$defs/a' }], $defs: { a: { type: 'object' } } });
  assert.equal(Object.keys(objectRooted(viaAllOf, 'f.json')), ['$schema', '$id', 'type', 'allOf', '$defs']);
  assert.is(objectRooted(S({ oneOf: [{ type: 'object' }, { allOf: [{ type: 'object' }] }] }), 'f.json').type, 'object');
  assert.is(objectRooted(S({ anyOf: [{ type: ['object'] }, { $ref: '#/$defs/b' }], $defs: { b: { oneOf: [{ type: 'object' }] } } }), 'f.json').type, 'object');
  const same = S({ type: 'object' });
  assert.is(objectRooted(same, 'f.json'), same, 'already object-rooted: returned as is');
  const refuse = (doc: JsonSchemaObject, pointer: string): void => {
    try {
      objectRooted(doc, 'rel:media-buy/x-response.json');
      assert.unreachable();
    } catch (e) {
      assert.instance(e, CodegenError);
      assert.is((e as CodegenError).file, 'rel:media-buy/x-response.json');
      assert.is((e as CodegenError).pointer, pointer);
    }
  };
  refuse(S({ oneOf: [{ type: 'object' }, { type: 'string' }] }), '');
  refuse(S({ anyOf: [] }), '');
  refuse(S({ allOf: [{ $ref: '#/$defs/loop' }], $defs: { loop: { $ref: '#/$defs/loop' } } }), '');
  refuse(S({ type: 'array' }), '/type');
});

test('structural never touches data: a `description` inside const/enum/default/examples values survives', () => {
  const doc = {
    type: 'object',
    description: 'root',
    title: 'T',
    properties: {
      a: { type: 'object', const: { description: 'data' }, description: 'gone' },
      b: { default: { title: 'data' }, enum: [{ examples: 1 }], $comment: 'gone' },
    },
  } as JsonSchemaObject;
  const out = structural(doc);
  assert.equal(out, { type: 'object', properties: { a: { type: 'object', const: { description: 'data' } }, b: { default: { title: 'data' }, enum: [{ examples: 1 }] } } });
  assert.equal(structural(doc, { keep: new Set(['a']) }).description, 'root');
  assert.is((structural(doc, { keep: new Set(['a']) }).properties as Record<string, { description?: string }>).a!.description, 'gone');
  assert.is(doc.title, 'T', 'the input is not mutated');
  assert.ok(PRESENTATION_ANNOTATIONS.has('x-tool-summary'));
});

test('envelope fields a closed response refuses are left out; an open one takes them all', () => {
  const dir = tinyRelease({
    'media-buy/make-thing-response.json': {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: '/schemas/9.1.0/media-buy/make-thing-response.json',
      type: 'object',
      properties: { thing: { type: 'object' }, status: { type: 'string' } },
      additionalProperties: false,
    },
    'media-buy/get-things-response.json': {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: '/schemas/9.1.0/media-buy/get-things-response.json',
      type: 'object',
      anyOf: [{ not: { anyOf: [{ required: ['status'] }] } }, { required: ['status'] }],
    },
  });
  const release = loadRelease(dir);
  assert.equal(refusedEnvelopeFields(release, release.tools.get('make_thing')!), ['adcp_version', 'context', 'replayed']);
  assert.equal(refusedEnvelopeFields(release, release.tools.get('get_things')!), ['status']);
  assert.equal(refusedEnvelopeFields(release, release.tools.get('get_adcp_capabilities')!), []);
});

test('a tools/list the MCP SDK would refuse fails the check, naming profile, tool and path', () => {
  const entry = (name: string, inputSchema: Record<string, unknown>) => ({
    name,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    inputSchema: { hash: 'h', path: 'p', schema: inputSchema, inputs: [] },
  });
  const data = (entries: unknown[]) => [{ profile: { file: 'profiles/p.json' }, selections: [], advertised: { releases: [], endpoint: entries } }] as never;
  const anchor = join(repoRoot, 'package.json');
  assert.is(checkToolsLists(data([entry('fine', { type: 'object' })]), anchor), 1);
  assert.throws(() => checkToolsLists(data([entry('fine', { type: 'object' }), entry('broken', { oneOf: [] })]), anchor), (e: Error) => {
    assert.instance(e, CodegenError);
    assert.match(e.message, /^profiles\/p\.json: the endpoint tools\/list is rejected by @modelcontextprotocol\/sdk's ListToolsResultSchema: tool broken, \/inputSchema\/type/);
    return true;
  });
  // Without the SDK beside the agent repository nothing is checked.
  assert.is(checkToolsLists(data([entry('broken', { oneOf: [] })]), '/nonexistent/dir/adcp-codegen.config.json'), undefined);
});

const work = tempDir('adcp-codegen-advertise-');
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
const profile = (extra: Record<string, unknown> = {}) => ({ name: 'p', tools: ['get_adcp_capabilities', 'make_thing'], capabilities: caps, ...extra });

test('a release whose advertised schema cannot be proven object-rooted: an error naming the release file, nothing written', async () => {
  const release = tinyRelease({
    'media-buy/make-thing-request.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: '/schemas/9.1.0/media-buy/make-thing-request.json', oneOf: [{ type: 'object' }, { type: 'string' }] },
    'media-buy/get-things-response.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: '/schemas/9.1.0/media-buy/get-things-response.json', anyOf: [{ type: 'object' }, { type: 'array' }] },
  });
  writeTree({ 'bad/p.json': profile(), 'bad/q.json': { ...profile({ advertise: { outputSchema: true } }), name: 'q', tools: ['get_adcp_capabilities', 'get_things'] } }, work);
  for (const [file, culprit] of [['p', 'make-thing-request'], ['q', 'get-things-response']] as const) {
    const out = join(work, `out-bad-${file}`);
    const run = await runCli(['generate', '--release', release, '--profile', join(work, `bad/${file}.json`), '--out', out], work);
    assert.is(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`error [^\n]*media-buy/${culprit}\.json: MCP tools/list schemas must be objects at the root`));
    assert.not.ok(existsSync(out), 'nothing written');
  }
});

test('supported_versions: the served releases are published; a profile stating others is an error naming the pointer', async () => {
  const release = tinyRelease({
    'media-buy/make-thing-response.json': {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: '/schemas/9.1.0/media-buy/make-thing-response.json',
      allOf: [{ $ref: '../core/thing.json' }],
    },
  });
  writeTree({ 'ok/p.json': profile({ advertise: { outputSchema: true } }), 'wrong/p.json': profile({ capabilities: { ...caps, adcp: { major_versions: [9], supported_versions: ['9.0'] } } }) }, work);
  const out = join(work, 'out-ok');
  let run = await runCli(['generate', '--release', release, '--profile', join(work, 'ok/p.json'), '--out', out], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /tools\/list\(s\) accepted by the MCP SDK/);
  const body = JSON.parse(readFileSync(join(out, 'profiles/p.json'), 'utf8')).profile as {
    releases: { capabilities: { adcp: { supported_versions: string[] } } }[];
    outputAdvertised: string[];
  };
  assert.equal(body.releases[0]!.capabilities.adcp.supported_versions, ['9.1']);
  const lists = JSON.parse(readFileSync(join(out, 'profiles/p.tools-list.json'), 'utf8')).toolsList as { endpoint: { name: string; outputSchema?: string }[] };
  // The call file names the tools whose endpoint entry advertises an outputSchema: production validates their bodies.
  assert.equal(body.outputAdvertised, lists.endpoint.filter((e) => e.outputSchema !== undefined).map((e) => e.name));
  assert.ok(body.outputAdvertised.includes('make_thing'));
  // outputSchema on: the allOf-rooted response is advertised object-rooted inside a union that also admits errors.
  const path = lists.endpoint.find((e) => e.name === 'make_thing')!.outputSchema!;
  const union = JSON.parse(readFileSync(join(out, path), 'utf8')).schema as Record<string, unknown>;
  assert.is(union.type, 'object');
  const validate = new Ajv({ strict: false, validateSchema: false }).compile(union);
  assert.ok(validate({ id: 't' }));
  assert.ok(validate({ adcp_error: { code: 'INVALID_REQUEST', message: 'm' }, status: 'failed' }));
  assert.not.ok(validate({ id: 7 }), 'still a schema: a body matching no member is refused');

  // Production with an advertised outputSchema: an invalid handler body never reaches a client that would throw on
  // it; the buyer gets a well-formed, non-retryable CONFIGURATION_ERROR (admitted by the same schema), the pointers stay server-side.
  const { loadProfile } = await setAt(out);
  const agent = await loadProfile('p' as never, { mode: 'production' });
  const bad = await agent.call('make_thing', { thing: { id: 'a' }, context: { c: 1 } }, () => ({ id: 7 }));
  await new Promise((r) => setImmediate(r));
  assert.ok(bad.isError);
  const error = bad.structuredContent!.adcp_error as { message: string; suggestion: string };
  assert.equal(error, { code: 'CONFIGURATION_ERROR', message: error.message, recovery: 'terminal', suggestion: error.suggestion, details: { tool: 'make_thing' } });
  assert.equal(bad.structuredContent!.context, { c: 1 });
  assert.ok(validate(bad.structuredContent));
  assert.is(warningsSeen(BAD_BODY), 1, 'the developer finds the pointer in the server log');
  const good = await agent.call('make_thing', { thing: { id: 'a' } }, () => ({ id: 'b' }));
  assert.not.ok(good.isError);
  assert.ok(validate(good.structuredContent));

  run = await runCli(['generate', '--release', release, '--profile', join(work, 'wrong/p.json'), '--out', join(work, 'out-wrong')], work);
  assert.is(run.code, 1);
  assert.match(run.stderr, /wrong\/p\.json#\/capabilities\/adcp\/supported_versions: states \["9\.0"\] but the profile serves \["9\.1"\]/);
});

test.run();
