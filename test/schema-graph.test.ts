import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CodegenError } from '../generator/shared/index.js';
import { loadRelease } from '../generator/load/index.js';
import type { Release, SchemaFile } from '../generator/load/index.js';
import { tinyRelease } from './helpers/fixture-release.js';
import { sdkReleaseDir } from './helpers/releases.js';

/**
 * The per-release schema graph (generator/load/schema-graph.ts): built once at load, read by every compiler. Hand-written
 * fixture releases pin the edge cases: cycles, `$ref` by `$id` and by relative path, `#/$defs` fragments, JSON
 * pointer escapes, `$ref`-shaped data, dangling references no tool reaches, absolute (3.2-style) `$id`s.
 */
const D7 = 'http://json-schema.org/draft-07/schema#';

function paths(files: readonly SchemaFile[]): string[] {
  return files.map((f) => f.path);
}

function file(r: Release, path: string): SchemaFile {
  const f = r.schemas.byPath.get(path);
  if (f === undefined) throw new Error(`no ${path}`);
  return f;
}

/** A release whose shared definitions refer to each other: a tree (self-recursive), a ping/pong pair, a leaf. */
function graphRelease(): Release {
  const id = (p: string): string => `/schemas/9.1.0/${p}`;
  return loadRelease(
    tinyRelease({
      'core/tree.json': { $schema: D7, $id: id('core/tree.json'), type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } }, leaf: { $ref: 'leaf.json' } } },
      'core/ping.json': { $schema: D7, $id: id('core/ping.json'), type: 'object', properties: { pong: { $ref: id('core/pong.json') } } },
      'core/pong.json': { $schema: D7, $id: id('core/pong.json'), type: 'object', properties: { ping: { $ref: './ping.json' } } },
      'core/leaf.json': {
        $schema: D7,
        $id: id('core/leaf.json'),
        $defs: { 'a/b': { type: 'string' }, 'c~d': { type: 'integer' }, 'e f': { type: 'boolean' }, '100%': { type: 'null' } },
        type: 'object',
        properties: {
          slash: { $ref: '#/$defs/a~1b' },
          tilde: { $ref: '#/$defs/c~0d' },
          space: { $ref: '#/$defs/e%20f' },
          percent: { $ref: '#/$defs/100%25' },
          // Data, not schema positions: never edges.
          kind: { enum: [{ $ref: 'nowhere.json' }] },
          tag: { const: { $ref: 'nowhere.json' }, examples: [{ $ref: 'nowhere.json' }], 'x-note': { $ref: 'nowhere.json' } },
        },
      },
      // Reached by no tool: its dangling reference is recorded, never thrown.
      'core/orphan.json': { $schema: D7, $id: id('core/orphan.json'), type: 'object', properties: { lost: { $ref: 'missing.json' } } },
      'media-buy/make-thing-request.json': {
        $schema: D7,
        $id: id('media-buy/make-thing-request.json'),
        type: 'object',
        properties: { thing: { $ref: '../core/thing.json' }, tree: { $ref: id('core/tree.json') } },
        required: ['thing'],
      },
      'media-buy/make-thing-response.json': {
        $schema: D7,
        $id: id('media-buy/make-thing-response.json'),
        type: 'object',
        properties: { thing: { $ref: id('core/thing.json') }, ping: { $ref: '/schemas/9.1.0/core/ping.json#/properties/pong' } },
      },
    }),
  );
}

test('references: every $ref at a schema position resolved once, by $id or by relative path, with its pointer', () => {
  const r = graphRelease();
  const request = file(r, 'media-buy/make-thing-request.json');
  const refs = r.graph.references(request);
  assert.equal(
    refs.map((x) => [x.pointer, x.ref, x.target?.file.path, x.target?.pointer]),
    [
      ['/properties/thing', '../core/thing.json', 'core/thing.json', ''],
      ['/properties/tree', '/schemas/9.1.0/core/tree.json', 'core/tree.json', ''],
    ],
  );
  // The same target whether written as a relative path or as the target's $id.
  const response = file(r, 'media-buy/make-thing-response.json');
  assert.is(r.graph.references(response)[0]!.target!.file, refs[0]!.target!.file);
  // A fragment into another document lands on the node itself.
  const pong = r.graph.references(response)[1]!.target!;
  assert.is(pong.file.path, 'core/ping.json');
  assert.is(pong.pointer, '/properties/pong');
  assert.is(pong.schema, (file(r, 'core/ping.json').schema.properties as Record<string, unknown>).pong);
  assert.is(pong.uri, '/schemas/9.1.0/core/ping.json#/properties/pong');
});

test('references: #/$defs fragments with JSON-pointer escapes (~0, ~1) and percent-encoding', () => {
  const r = graphRelease();
  const leaf = file(r, 'core/leaf.json');
  const defs = leaf.schema.$defs as Record<string, unknown>;
  const byName = new Map(r.graph.references(leaf).map((x) => [x.pointer, x.target!]));
  assert.is(byName.get('/properties/slash')!.schema, defs['a/b']);
  assert.is(byName.get('/properties/slash')!.pointer, '/$defs/a~1b');
  assert.is(byName.get('/properties/tilde')!.schema, defs['c~d']);
  assert.is(byName.get('/properties/tilde')!.pointer, '/$defs/c~0d');
  assert.is(byName.get('/properties/space')!.schema, defs['e f']);
  assert.is(byName.get('/properties/percent')!.schema, defs['100%']);
  // `$ref`-shaped values inside enum, const, examples and x-* are data.
  assert.is(r.graph.references(leaf).length, 4);
  assert.equal(paths(r.graph.dependencies(leaf)), ['core/leaf.json']);
});

test('referenceAt/target: the reference a schema object holds, by identity', () => {
  const r = graphRelease();
  const request = file(r, 'media-buy/make-thing-request.json');
  const node = (request.schema.properties as Record<string, object>).thing!;
  assert.is(r.graph.referenceAt(node)?.ref, '../core/thing.json');
  assert.is(r.graph.target(node).file.path, 'core/thing.json');
  // A structurally equal object elsewhere is another node.
  assert.is(r.graph.referenceAt({ $ref: '../core/thing.json' }), undefined);
  assert.throws(() => r.graph.target(request.schema), /not a \$ref/);
});

test('dangling references no tool reaches are recorded, not thrown; a reached one fails the load naming file and pointer', () => {
  const r = graphRelease();
  const [lost] = r.graph.references(file(r, 'core/orphan.json'));
  assert.is(lost!.target, undefined);
  assert.match(lost!.problem!, /no schema with \$id "\/schemas\/9\.1\.0\/core\/missing\.json"/);
  assert.throws(() => r.graph.target((file(r, 'core/orphan.json').schema.properties as Record<string, object>).lost!), /missing\.json/);

  const id = '/schemas/9.1.0/media-buy/make-thing-request.json';
  try {
    loadRelease(tinyRelease({ 'media-buy/make-thing-request.json': { $schema: D7, $id: id, type: 'object', properties: { a: { items: { $ref: '#/$defs/none' } } } } }));
    assert.unreachable('a dangling fragment a tool reaches must fail');
  } catch (e) {
    assert.instance(e, CodegenError);
    assert.match((e as CodegenError).file, /media-buy\/make-thing-request\.json$/);
    assert.is((e as CodegenError).pointer, '/properties/a/items/$ref');
  }
});

test('reach per tool: request and responses apart, path order, cycles followed once', () => {
  const r = graphRelease();
  const make = r.graph.tool('make_thing')!;
  assert.equal(paths(make.request), ['core/leaf.json', 'core/thing.json', 'core/tree.json', 'media-buy/make-thing-request.json']);
  assert.equal(paths(make.response), ['core/ping.json', 'core/pong.json', 'core/thing.json', 'media-buy/make-thing-response.json']);
  assert.equal(paths(make.all), [...new Set([...paths(make.request), ...paths(make.response)])].sort());
  assert.equal(paths(r.graph.reach([file(r, 'core/pong.json')])), ['core/ping.json', 'core/pong.json']);
  assert.is(r.graph.tool('no_such_tool'), undefined);
});

test('cycles: self-recursive documents and mutually recursive groups, dependencies first; acyclic documents left out', () => {
  const r = graphRelease();
  assert.equal(
    r.graph.cycles.map((c) => paths(c)),
    [['core/leaf.json'], ['core/ping.json', 'core/pong.json'], ['core/tree.json']],
  );
});

test('keywords and property names: what Ajv strict mode and the annotation vocabulary are built from', () => {
  const r = graphRelease();
  const leaf = file(r, 'core/leaf.json');
  // Per document: the keywords of every schema node in it (properties/tag holds x-note), never data keys.
  assert.equal([...r.graph.keywords(leaf)].sort(), ['$defs', '$id', '$ref', '$schema', 'const', 'enum', 'examples', 'properties', 'type', 'x-note']);
  assert.not.ok(r.graph.keywords(file(r, 'core/tree.json')).has('x-note'));
  assert.ok(r.graph.vocabulary.has('x-note'));
  assert.ok(r.graph.propertyNames.has('children'));
  assert.ok(r.graph.propertyNames.has('thing'));
  assert.not.ok(r.graph.propertyNames.has('a/b'), '$defs keys are definitions, not properties');
});

test('a document shipped twice (same $id and content, two paths): both copies are walked, refs land on the registered one', () => {
  const id = '/schemas/9.1.0/media-buy/make-thing-response.json';
  const doc = { $schema: D7, $id: id, type: 'object', properties: { thing: { $ref: '../core/thing.json' } } };
  // The copy sorts first, so the registry keeps it under the $id; the manifest names the other path.
  const r = loadRelease(tinyRelease({ 'media-buy/make-thing-response.json': doc, 'core/copies/make-thing-response.json': doc }));
  const named = file(r, 'media-buy/make-thing-response.json');
  const copy = file(r, 'core/copies/make-thing-response.json');
  assert.is(r.graph.documents.get(id), copy);
  assert.is(r.graph.target((named.schema.properties as Record<string, object>).thing!).file.path, 'core/thing.json');
  assert.equal(paths(r.graph.tool('make_thing')!.response), ['core/thing.json', 'media-buy/make-thing-response.json']);
});

test('absolute $ids (AdCP 3.2 style): relative refs resolve against the URL, by $id too', () => {
  const base = 'https://adcontextprotocol.org/schemas/9.3.0';
  const r = loadRelease(
    tinyRelease(
      {
        'core/thing.json': { $schema: D7, $id: `${base}/core/thing.json`, type: 'object', properties: { id: { type: 'string' }, parent: { $ref: '#' } } },
        'media-buy/get-things-response.json': { $schema: D7, $id: `${base}/media-buy/get-things-response.json`, type: 'object', properties: { things: { type: 'array', items: { $ref: '/schemas/9.3.0/core/thing.json' } } } },
        'media-buy/make-thing-request.json': { $schema: D7, $id: `${base}/media-buy/make-thing-request.json`, type: 'object', properties: { thing: { $ref: '../core/thing.json' } } },
        'media-buy/make-thing-response.json': { $schema: D7, $id: `${base}/media-buy/make-thing-response.json`, type: 'object', properties: { thing: { $ref: `${base}/core/thing.json` } } },
        'media-buy/get-things-request.json': { $schema: D7, $id: `${base}/media-buy/get-things-request.json`, type: 'object' },
        'protocol/caps-request.json': { $schema: D7, $id: `${base}/protocol/caps-request.json`, type: 'object' },
        'protocol/caps-response.json': { $schema: D7, $id: `${base}/protocol/caps-response.json`, type: 'object' },
      },
      '9.3.0',
    ),
  );
  const thing = file(r, 'core/thing.json');
  for (const path of ['media-buy/get-things-response.json', 'media-buy/make-thing-request.json', 'media-buy/make-thing-response.json']) {
    assert.equal(paths(r.graph.dependencies(file(r, path))), ['core/thing.json'], path);
  }
  assert.is(r.graph.references(file(r, 'media-buy/make-thing-request.json'))[0]!.target!.uri, `${base}/core/thing.json#`);
  assert.equal(r.graph.cycles.map((c) => paths(c)), [['core/thing.json']]);
  assert.is(r.graph.documents.get(thing.id), thing);
});

test('the embedded 3.0.6: every reference a tool reaches resolves, and reach agrees with a plain walk of the registry', () => {
  const r = loadRelease(sdkReleaseDir());
  const tool = r.tools.get('create_media_buy')!;
  const seen = new Set<string>();
  const stack = [r.schemas.byPath.get(tool.requestSchema)!];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (seen.has(f.path)) continue;
    seen.add(f.path);
    for (const ref of r.graph.references(f)) {
      assert.ok(ref.target !== undefined, `${f.path}#${ref.pointer}`);
      assert.is(r.schemas.resolve(ref.ref, f.id).uri, ref.target!.uri);
      stack.push(ref.target!.file);
    }
  }
  assert.equal(paths(r.graph.tool('create_media_buy')!.request), [...seen].sort());
  // Every component is a real cycle: each member reaches every member (itself included) through its dependencies.
  assert.ok(r.graph.cycles.length > 0);
  for (const component of r.graph.cycles) {
    for (const f of component) {
      const back = r.graph.reach(r.graph.dependencies(f));
      assert.ok(component.every((g) => back.includes(g)), component.map((g) => g.path).join(', '));
    }
  }
});

test.run();
