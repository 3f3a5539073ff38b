import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { repoRoot } from './helpers/releases.js';
import { serveAgent } from './helpers/serve.js';
import { typecheck } from './helpers/typecheck.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/seller is served without authentication/);

/**
 * A release whose schemas name properties every plain object inherits: `hasOwnProperty` (it broke type generation,
 * with no file or pointer), `constructor`, `toString`, `valueOf`, and `__proto__` (which Ajv skips wherever a schema
 * maps names). Generated, and then what was emitted is run on payloads parsed with JSON.parse (so `__proto__` is an
 * own property, as a buyer's JSON makes it): validators, deep-strip, the normalizer, projection, tools/list over
 * MCP, and the types under tsc strict.
 */

const id = (p: string): string => `/schemas/9.1.0/${p}`;
// Written as JSON text: a `__proto__` key in a JavaScript object literal would set a prototype, not declare a name.
const request = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "$id": "${id('media-buy/make-thing-request.json')}",
  "type": "object",
  "additionalProperties": false,
  "required": ["thing", "hasOwnProperty", "__proto__"],
  "dependencies": { "__proto__": ["valueOf"] },
  "properties": {
    "thing": { "$ref": "../core/thing.json" },
    "hasOwnProperty": { "type": "string" },
    "__proto__": {
      "type": "object",
      "additionalProperties": false,
      "required": ["__proto__"],
      "properties": { "__proto__": { "type": "string" }, "valueOf": { "type": "boolean" } }
    },
    "constructor": {
      "type": "object",
      "properties": { "toString": { "type": "integer" }, "valueOf": { "type": "string" } },
      "patternProperties": { "__proto__": { "type": "string" } }
    },
    "toString": { "type": "string", "enum": ["a", "b"] },
    "valueOf": { "type": "number" },
    "context": { "type": "object" }
  }
}`;

// The capabilities schema declares one too: a profile's capabilities are checked against it at generation.
const capsResponse = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "$id": "${id('protocol/caps-response.json')}",
  "type": "object",
  "required": ["adcp", "supported_protocols"],
  "properties": {
    "adcp": { "type": "object", "required": ["major_versions"], "properties": { "major_versions": { "type": "array", "items": { "type": "integer" } } } },
    "supported_protocols": { "type": "array", "items": { "enum": ["media_buy", "signals"] } },
    "__proto__": { "type": "object", "properties": { "flag": { "type": "boolean" } }, "additionalProperties": false }
  }
}`;

const work = tempDir('adcp-proto-names-');
const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
writeTree(
  {
    'profiles/seller.json': { name: 'seller', tools: ['get_adcp_capabilities', 'get_things', 'make_thing'], capabilities: caps },
    'rules.json': { rules: [{ id: 'legacy_owner-to-hasownproperty', tools: ['make_thing'], from: 'legacy_owner', to: ['hasOwnProperty'], transform: { kind: 'rename' } }] },
    'overlay.json': { annotations: [{ schema: 'media-buy/make-thing-request.json', pointer: '/properties/constructor/properties/valueOf', 'x-adcp-applies-when': { capabilities: ['adcp.never_published'] } }] },
    'adcp-codegen.config.json': { releases: [tinyRelease({ 'media-buy/make-thing-request.json': request, 'protocol/caps-response.json': capsResponse })], profiles: ['profiles/seller.json'], normalizations: ['rules.json'], overlays: ['overlay.json'], out: 'out' },
  },
  work,
);
const out = join(work, 'out');
// The generated set resolves @modelcontextprotocol/sdk from where it lies, as in an agent repository.
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');

type Issue = { pointer: string; keyword: string; missingProperty?: string };
type Result = { isError?: boolean; structuredContent?: Record<string, any> };
type Agent = {
  releases: string[];
  validateRequest(tool: string, args: unknown): { ok: boolean; issues?: Issue[] };
  strip(tool: string, args: unknown): { value: any; removed: string[] };
  normalize(tool: string, args: unknown): { value: any; applied: { rule: string }[] };
  toolsList(): { name: string; inputSchema: Record<string, any> }[];
  call(tool: string, args: unknown, handler: (args: any) => unknown): Promise<Result>;
};
let prod: Agent;
let dev: Agent;

const valid =
  '{"thing":{"id":"t"},"hasOwnProperty":"h","__proto__":{"__proto__":"p","valueOf":true},"constructor":{"toString":3,"x__proto__y":"s"},"toString":"a","valueOf":1,"context":{"c":1}}';
const parse = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

test('generates: types, validators, strip, normalizers and tools/list for a release naming inherited properties', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  const set = (await import(pathToFileURL(join(out, 'index.js')).href)) as { loadProfile(n: string, o?: object): Promise<Agent> };
  prod = await set.loadProfile('seller', { mode: 'production' });
  dev = await set.loadProfile('seller', { mode: 'development' });
});

test("a profile's capabilities are checked against a declared __proto__ too, and served as declared", async () => {
  const bad = join(work, 'bad');
  writeTree({ 'profiles/seller.json': `{"name":"seller","tools":["get_adcp_capabilities","get_things"],"capabilities":{"adcp":{"major_versions":[9]},"supported_protocols":["media_buy"],"__proto__":{"flag":"yes"}}}` }, bad);
  const release = (JSON.parse(readFileSync(join(work, 'adcp-codegen.config.json'), 'utf8')) as { releases: string[] }).releases[0]!;
  const run = await runCli(['generate', '--release', release, '--profile', 'profiles/seller.json', '--out', 'out'], bad);
  assert.is(run.code, 1);
  assert.match(run.stderr, /profiles\/seller\.json#\/capabilities\/__proto__\/flag: fails type/, run.stderr);
  writeTree({ 'profiles/seller.json': `{"name":"seller","tools":["get_adcp_capabilities","get_things"],"capabilities":{"adcp":{"major_versions":[9]},"supported_protocols":["media_buy"],"__proto__":{"flag":true}}}` }, bad);
  const ok = await runCli(['generate', '--release', release, '--profile', 'profiles/seller.json', '--out', 'out'], bad);
  assert.is(ok.code, 0, ok.stderr);
  const set = (await import(pathToFileURL(join(bad, 'out/index.js')).href)) as { loadProfile(n: string): Promise<{ capabilities(): Record<string, unknown> }> };
  const agent = await set.loadProfile('seller');
  const caps = agent.capabilities();
  assert.ok(Object.prototype.hasOwnProperty.call(caps, '__proto__'));
  assert.is(Object.getPrototypeOf(caps), Object.prototype);
  assert.match(JSON.stringify(caps), /"__proto__":\{"flag":true\}/);
});

test('the emitted validator checks a declared __proto__ and the inherited names as own properties', () => {
  for (const agent of [prod, dev]) {
    // (uvu's deep equality calls value.hasOwnProperty(): these payloads are compared as JSON text.)
    const ok = agent.validateRequest('make_thing', parse(valid)) as { ok: boolean; value?: unknown };
    assert.ok(ok.ok, 'a valid payload holding every name');
    assert.is(JSON.stringify(ok.value), valid);
    const verdict = (text: string) => agent.validateRequest('make_thing', parse(text)).issues?.map((i) => `${i.keyword} ${i.pointer}${i.missingProperty !== undefined ? ` ${i.missingProperty}` : ''}`);
    // Absent names are absent, whatever Object.prototype holds (a missing property's pointer is its own).
    assert.equal(verdict('{"thing":{"id":"t"},"hasOwnProperty":"h","valueOf":1}'), ['required /__proto__ __proto__']);
    assert.equal(verdict('{"thing":{"id":"t"},"__proto__":{"__proto__":"p"},"valueOf":1}'), ['required /hasOwnProperty hasOwnProperty']);
    // A declared __proto__'s own schema is applied (Ajv alone ignored it, and called it an unknown property).
    assert.equal(verdict('{"thing":{"id":"t"},"hasOwnProperty":"h","__proto__":"not an object","valueOf":1}'), ['type /__proto__']);
    assert.equal(verdict('{"thing":{"id":"t"},"hasOwnProperty":"h","__proto__":{"valueOf":true},"valueOf":1}'), ['required /__proto__/__proto__ __proto__']);
    assert.equal(verdict('{"thing":{"id":"t"},"hasOwnProperty":"h","__proto__":{"__proto__":7},"valueOf":1}'), ['type /__proto__/__proto__']);
    // dependencies on __proto__, a pattern spelt __proto__, inherited names with their own schemas.
    // (Said as the `if`/`then` Ajv is given for it: a `required` issue naming the dependent property.)
    assert.equal(verdict('{"thing":{"id":"t"},"hasOwnProperty":"h","__proto__":{"__proto__":"p"}}'), ['required /valueOf valueOf']);
    assert.equal(verdict(valid.replace('"x__proto__y":"s"', '"x__proto__y":5')), ['type /constructor/x__proto__y']);
    assert.equal(verdict(valid.replace('"toString":3', '"toString":"3"')), ['type /constructor/toString']);
    assert.equal(verdict(valid.replace('"toString":"a"', '"toString":"z"')), ['enum /toString']);
    assert.equal(verdict(valid.replace('"hasOwnProperty":"h"', '"hasOwnProperty":{}')), ['type /hasOwnProperty']);
  }
});

test('deep-strip removes undeclared inherited names and keeps declared ones, as own data, prototypes untouched', () => {
  const payload = parse(
    valid.replace('"thing":{"id":"t"}', '"thing":{"id":"t","constructor":1,"toString":2,"__proto__":{"polluted":true},"hasOwnProperty":4,"valueOf":{}}').replace('"__proto__":"p"', '"__proto__":"p","zzz":1'),
  );
  const { value, removed } = prod.strip('make_thing', payload);
  assert.equal([...removed].sort(), ['/__proto__/zzz', '/thing/constructor', '/thing/toString', '/thing/__proto__', '/thing/hasOwnProperty', '/thing/valueOf'].sort());
  assert.equal(Object.keys(value.thing), ['id']);
  assert.is(Object.getPrototypeOf(value.thing), Object.prototype);
  assert.ok(Object.prototype.hasOwnProperty.call(value, '__proto__'), 'the declared __proto__ is kept, as an own property');
  assert.equal(Object.keys(value.__proto__), ['__proto__', 'valueOf']);
  assert.is(Object.getPrototypeOf(value), Object.prototype);
  assert.is(({} as Record<string, unknown>).polluted, undefined, 'nothing reached Object.prototype');
  assert.ok(prod.validateRequest('make_thing', value).ok);
  // Development rejects each of them, naming it.
  const issues = dev.validateRequest('make_thing', payload).issues!.map((i) => i.pointer);
  for (const p of removed) assert.ok(issues.includes(p), p);
});

test('the normalizer writes an inherited name as own data and carries __proto__ through as data', () => {
  const input = parse(valid.replace('"hasOwnProperty":"h",', '"legacy_owner":"h",'));
  const { value, applied } = prod.normalize('make_thing', input);
  assert.equal(applied.map((a) => a.rule), ['legacy_owner-to-hasownproperty']);
  assert.ok(Object.prototype.hasOwnProperty.call(value, 'hasOwnProperty'));
  assert.is(value.hasOwnProperty, 'h');
  assert.not.ok(Object.prototype.hasOwnProperty.call(value, 'legacy_owner'));
  assert.is(JSON.stringify(value.__proto__), '{"__proto__":"p","valueOf":true}');
  assert.ok(Object.prototype.hasOwnProperty.call(value, '__proto__'));
  assert.is(Object.getPrototypeOf(value), Object.prototype);
  assert.ok(prod.validateRequest('make_thing', value).ok);
});

test('a call end to end: the handler gets the declared names as own properties; the context is echoed', async () => {
  for (const agent of [prod, dev]) {
    let seen: any;
    const r = await agent.call('make_thing', parse(valid), (args) => ((seen = args), { thing: { id: 't' } }));
    assert.not.ok(r.isError, JSON.stringify(r.structuredContent));
    assert.equal(Object.keys(seen), ['thing', 'hasOwnProperty', '__proto__', 'constructor', 'toString', 'valueOf', 'context']);
    assert.is(seen.__proto__.__proto__, 'p');
    assert.is(Object.getPrototypeOf(seen), Object.prototype);
    assert.equal(r.structuredContent!.context, { c: 1 });
  }
});

test('projection: applies-when drops an inherited name where it does not apply; __proto__ stays declared', () => {
  const schema = prod.toolsList().find((t) => t.name === 'make_thing')!.inputSchema;
  assert.equal(Object.keys(schema.properties), ['thing', 'hasOwnProperty', '__proto__', 'constructor', 'toString', 'valueOf', 'context']);
  assert.equal(Object.keys(schema.properties.constructor.properties), ['toString'], 'valueOf dropped: the capability is not published');
  assert.ok(Object.prototype.hasOwnProperty.call(schema.properties, '__proto__'));
  assert.equal(Object.keys(schema.properties.__proto__.properties), ['__proto__', 'valueOf']);
  assert.is(Object.getPrototypeOf(schema.properties), Object.prototype);
});

test('tools/list and a call through the official MCP client over Streamable HTTP', async () => {
  const served = await serveAgent(dev, { get_things: () => ({ things: [] }), make_thing: () => ({ thing: { id: 't' } }) });
  const client = new Client({ name: 'proto-buyer', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === 'make_thing')!;
    // The agent sends __proto__ as a declared property (the list it serves, as JSON); the SDK's client parses the
    // list with zod, which leaves a `__proto__` key out of the record it builds: that one name is lost client-side.
    assert.match(JSON.stringify(dev.toolsList().find((t) => t.name === 'make_thing')!.inputSchema.properties), /^\{"thing":[^]*,"__proto__":\{"type":"object"/);
    assert.equal(Object.keys(listed.inputSchema.properties!), ['thing', 'hasOwnProperty', 'constructor', 'toString', 'valueOf', 'context']);
    const ok = (await client.callTool({ name: 'make_thing', arguments: parse(valid) })) as Result;
    assert.not.ok(ok.isError, JSON.stringify(ok.structuredContent));
    const bad = (await client.callTool({ name: 'make_thing', arguments: parse('{"thing":{"id":"t"},"hasOwnProperty":"h","__proto__":{"__proto__":1},"valueOf":1}') })) as Result;
    assert.is(bad.structuredContent!.adcp_error.code, 'INVALID_REQUEST');
    assert.is(bad.structuredContent!.adcp_error.issues[0].pointer, '/__proto__/__proto__');
    assert.is(bad.structuredContent!.adcp_error.field, '__proto__.__proto__');
  } finally {
    await client.close();
    await served.close();
  }
});

test('the types compile under tsc strict and type each name as declared (a wrong use does not compile)', () => {
  const entry = join(out, 'index.js');
  const handler = (body: string): string => `
import { loadProfile } from GENERATED;
const agent = await loadProfile('seller');
agent.registerMcp({}, {
  get_things: () => ({ things: [] }),
  make_thing: (args) => {
${body}
    return { thing: { id: 't' } };
  },
});
`;
  const ok = typecheck(
    handler(`
    const own: string = args.hasOwnProperty;
    const inner: string = args.__proto__.__proto__;
    const flag: boolean | undefined = args.__proto__.valueOf;
    const n: number | undefined = args.constructor?.toString;
    const t: 'a' | 'b' | undefined = args.toString;
    const v: number | undefined = args.valueOf;
    console.log(own, inner, flag, n, t, v);`),
    entry,
  );
  assert.ok(ok.ok, ok.output);
  const wrong = typecheck(handler(`    const own: number = args.hasOwnProperty;\n    console.log(own);`), entry);
  assert.not.ok(wrong.ok, 'hasOwnProperty is typed string, not any');
  assert.match(wrong.output, /hasOwnProperty/);
  const missing = typecheck(handler(`    const inner: string = args.__proto__.missing;\n    console.log(inner);`), entry);
  assert.not.ok(missing.ok, '__proto__ is the declared closed object');
});

test.run();
