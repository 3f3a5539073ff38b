import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileSchemaValidators, compileValidators, createRuntimeAjv } from '../generator/compile/index.js';
import { CodegenError } from '../generator/shared/index.js';
import { loadRelease, type EmittedFile } from '../generator/load/index.js';
import { examplesDifferential, writeEmitted } from './helpers/differential.js';
import type { Issue, RawValidateFn, RequestValidatorModule } from '../runtime/artifacts/contract.js';
import { toIssues, wrapResponseValidator, wrapValidator } from '../runtime/issues/issues.js';
import { loadArtifact, loadedArtifacts } from '../runtime/artifacts/loader.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { sdkReleaseDir } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { rootPack } from './helpers/code-cache-plant.js';
import { requestValidator, responseValidators } from './helpers/tool-validators.js';

/**
 * The compiled canonical validators on AdCP 3.0.6 (the release inside @adcp/sdk), exercised through the GENERATED
 * modules: emitted files are written to a temp dir and loaded by runtime/loader.ts, as agents load them.
 */

const release = loadRelease(sdkReleaseDir());
const files = compileValidators(release);
const out = tempDir('adcp-validators-');
writeEmitted(out, files);
const runtimeAjv = createRuntimeAjv(release);
const tools = [...release.tools.keys()].filter((t) => !release.unavailable.has(t));

function checkRequest(tool: string) {
  return wrapValidator(requestValidator(out, release.key, tool));
}

const VALID_CMB = createMediaBuyRequest();
const clone = <T>(v: T): T => structuredClone(v);

test('every available tool gets request and response validators in its release\'s module; every require stays inside the output', () => {
  const paths = new Set(files.map((f) => f.path));
  assert.is(paths.size, files.length, 'no path emitted twice');
  const entry = files.find((f) => f.path === 'releases/3.0/validate.cjs')!;
  const listed = [...entry.contents.matchAll(/^tools\[("[^"]+")\] = \{$/gm)].map((m) => JSON.parse(m[1]!) as string);
  assert.equal(listed, [...tools].sort(), 'one entry per available tool, in name order');
  for (const tool of release.unavailable.keys()) assert.not.ok(listed.includes(tool), tool);
  for (const f of files) {
    for (const m of f.contents.matchAll(/require\(("(?:[^"\\]|\\.)*")\)/g)) {
      const spec = JSON.parse(m[1]!) as string;
      assert.ok(spec.startsWith('./') || spec.startsWith('../'), `${f.path} requires ${spec}`);
      const target = posix.normalize(posix.join(posix.dirname(f.path), spec));
      assert.ok(paths.has(target), `${f.path} requires ${spec}, which is not emitted`);
    }
    assert.not.match(f.contents, /sourceURL/);
    assert.ok(f.inputs.length > 0, `${f.path} names its inputs`);
  }
  // No documentation in the code: the request schema's own description is nowhere in its module.
  const cmbSchema = release.schemas.byPath.get('media-buy/create-media-buy-request.json')!.schema;
  const cmbDef = files.find((f) => f.path.includes('/packs/') && /define\("media-buy\.create-media-buy-request-[0-9a-f]{12}"/.test(f.contents))!;
  assert.not.ok(cmbDef.contents.includes(String(cmbSchema.description).slice(0, 60)));
  assert.ok(
    entry.inputs.some((i) => i.name === 'adcp-3.0.6:media-buy/create-media-buy-request.json' && i.hash === release.schemas.byPath.get('media-buy/create-media-buy-request.json')!.hash),
    'the module names each tool\'s request schema among its inputs',
  );
});

test('deterministic, content-addressed and packed: a definition is emitted once, with the definitions the same tools reach', () => {
  const one = compileValidators(release, ['create_media_buy']);
  const again = compileValidators(release, ['create_media_buy']);
  assert.equal(again.map((f) => [f.path, f.contents]), one.map((f) => [f.path, f.contents]));
  const packs = (set: EmittedFile[]) => set.filter((f) => f.path.includes('/packs/'));
  // Every definition is emitted once in the full set, under its content-addressed key.
  const keys = packs(files).flatMap((f) => [...f.contents.matchAll(/^define\(("[^"]+")/gm)].map((m) => JSON.parse(m[1]!) as string));
  assert.is(new Set(keys).size, keys.length, 'no definition in two packs');
  assert.is(keys.filter((k) => /^core\.product-[0-9a-f]{12}$/.test(k)).length, 1, 'core/product.json compiled once');
  assert.ok(packs(files).length * 2 < keys.length, `${keys.length} definitions in ${packs(files).length} packs`);
  // A pack's file name is the hash of its text: a change anywhere renames it; and packs are required by several.
  for (const f of packs(files)) assert.match(f.path, /\/packs\/[a-z_.]+-[0-9a-f]{12}\.cjs$/);
  const shared = packs(files).filter((f) => f.path.includes('/shared-'));
  assert.ok(shared.length > 0);
  const name = shared[0]!.path.split('/').pop()!;
  const requires = files.reduce((n, f) => n + f.contents.split(`/${name}")`).length - 1, 0);
  assert.ok(requires >= 2, 'a shared pack is required from several places');
  // Definitions only one entry reaches are packed under that entry's name.
  assert.ok(packs(one).some((f) => /\/packs\/create_media_buy\.request-/.test(f.path)));
  // Only what the selected tools reach: compiling one tool emits a fraction of the release.
  const size = (set: EmittedFile[]) => set.reduce((n, f) => n + f.contents.length, 0);
  assert.ok(size(one) * 3 < size(files), 'one tool emits a fraction of the release');
});

test('strict mode names the place: an unknown keyword in a referenced schema fails with its file and pointer', () => {
  const copy = tempDir('adcp-validators-typo-');
  cpSync(sdkReleaseDir(), copy, { recursive: true });
  const file = join(copy, 'core/brand-ref.json');
  const schema = JSON.parse(readFileSync(file, 'utf8')) as { properties: { domain: Record<string, unknown> } };
  schema.properties.domain.minLenght = 3;
  writeFileSync(file, JSON.stringify(schema));
  const broken = loadRelease(copy);
  try {
    compileValidators(broken, ['create_media_buy']);
    assert.unreachable('a misspelt keyword must fail the build');
  } catch (e) {
    assert.instance(e, CodegenError);
    assert.is((e as CodegenError).file, 'adcp-3.0.6/core/brand-ref.json');
    assert.is((e as CodegenError).pointer, '/properties/domain');
    assert.match((e as CodegenError).detail, /unknown keyword "minLenght"/);
  }
});

test('differential: every examples entry (and breakages of it) gets the same verdict as run-time Ajv', () => {
  const r = examplesDifferential(release, tempDir('adcp-validators-examples-'), runtimeAjv, compileSchemaValidators, (dir, module, data) =>
    wrapValidator((loadArtifact(dir, module) as RequestValidatorModule).validate)(data).ok,
  );
  console.log(`  3.0.6 examples differential: ${r.cases} payloads at ${r.locations} schema locations, ${r.valid} valid, ${r.cases - r.valid} invalid, ${r.disagreements.length} disagreements`);
  assert.equal(r.disagreements, []);
  assert.ok(r.valid > 100 && r.cases - r.valid > 100, 'both verdicts exercised');
});

test('differential: tool request and response modules agree with run-time Ajv on the root examples of every tool schema', () => {
  let n = 0;
  for (const tool of tools) {
    const def = release.tools.get(tool)!;
    const req = requestValidator(out, '3.0', tool);
    const res = responseValidators(out, '3.0', tool);
    const pairs: [string, RawValidateFn][] = [
      [def.requestSchema, req],
      [def.responseSchema, res.validate],
    ];
    for (const path of def.asyncResponseSchemas) {
      const status = Object.keys(res.validateAsync).find((s) => path.endsWith(`-${s}.json`));
      assert.ok(status !== undefined, `${tool}: async schema ${path} is keyed by its status`);
      pairs.push([path, res.validateAsync[status]!]);
    }
    for (const [path, raw] of pairs) {
      const file = release.schemas.byPath.get(path)!;
      const examples = Array.isArray(file.schema.examples) ? file.schema.examples : [];
      for (const ex of [...examples, {}, { adcp_probe: 1 }, null]) {
        n++;
        assert.is(wrapValidator(raw)(ex).ok, runtimeAjv.getSchema(file.id)!(ex) === true, `${tool} ${path}`);
      }
    }
  }
  assert.ok(n > 200);
});

test('issues: enum with allowedValues, required at the missing property, additionalProperties, pointers escaped', () => {
  const v = checkRequest('create_media_buy');
  assert.equal(v(VALID_CMB), { ok: true });
  const pacing = clone(VALID_CMB) as Record<string, unknown> & { packages: Record<string, unknown>[] };
  pacing.packages[0]!.pacing = 'fastest';
  assert.equal(v(pacing), {
    ok: false,
    issues: [{ pointer: '/packages/0/pacing', keyword: 'enum', message: 'must be one of "even", "asap", "front_loaded"', allowedValues: ['even', 'asap', 'front_loaded'] }],
  });
  const missing = clone(VALID_CMB) as { packages: Record<string, unknown>[] };
  delete missing.packages[0]!.product_id;
  const r = v(missing);
  assert.equal(r.ok ? [] : r.issues, [{ pointer: '/packages/0/product_id', keyword: 'required', message: 'is required', missingProperty: 'product_id' }]);

  const closed = compileAndLoad('core/brand-ref.json');
  const extra = closed({ domain: 'acme.example', 'odd/~name': 1 });
  assert.equal(extra.ok ? [] : extra.issues, [
    { pointer: '/odd~1~0name', keyword: 'additionalProperties', message: "unknown property 'odd/~name' is not allowed here", additionalProperty: 'odd/~name' },
  ]);
});

/** A generated validator for one schema file of the release, through the same emitter. */
function compileAndLoad(path: string) {
  const uri = `${release.schemas.byPath.get(path)!.id}#`;
  const compiled = compileSchemaValidators(release, [uri]);
  const dir = tempDir('adcp-validators-one-');
  writeEmitted(dir, compiled.files);
  return wrapValidator((loadArtifact(dir, compiled.modules.get(uri)!) as RequestValidatorModule).validate);
}

test('issues: a discriminated union reports the discriminator, not every branch', () => {
  const v = compileAndLoad('core/pricing-option.json');
  const models = ['cpm', 'vcpm', 'cpc', 'cpcv', 'cpv', 'cpp', 'cpa', 'flat_rate', 'time'];
  const wrong = v({ pricing_option_id: 'p1', pricing_model: 'cpmx', currency: 'USD' });
  // No arm selected: the discriminator's issue, without `discriminator` (error-handling.mdx: omitted when no variant
  // is selected); the collection goes on past it without reporting what a guessed arm would say.
  assert.equal(wrong.ok ? [] : wrong.issues[0], {
    pointer: '/pricing_model',
    keyword: 'oneOf',
    message: `must be one of ${models.map((m) => JSON.stringify(m)).join(', ')}`,
    allowedValues: models,
  });
  const absent = v({ pricing_option_id: 'p1', currency: 'USD' });
  assert.equal(absent.ok ? undefined : [absent.issues[0]!.pointer, absent.issues[0]!.keyword, absent.issues[0]!.missingProperty, absent.issues[0]!.allowedValues], [
    '/pricing_model',
    'required',
    'pricing_model',
    models,
  ]);
  assert.is(absent.ok ? 'ok' : absent.issues[0]!.discriminator, undefined);
  // A known model with a bad field: the issue is that field, and no other branch's complaint about the model.
  const badField = v({ pricing_option_id: 'p1', pricing_model: 'cpm', currency: 'usd' });
  assert.not.ok(badField.ok);
  const issues = badField.ok ? [] : badField.issues;
  const currency = issues.find((i) => i.pointer === '/currency' && i.keyword === 'pattern');
  assert.ok(currency, JSON.stringify(issues));
  // The arm the value selected, as error-handling.mdx says: the property and the value the caller sent.
  assert.equal(currency!.discriminator, [{ property_name: 'pricing_model', value: 'cpm' }]);
  assert.not.ok(issues.some((i) => i.pointer === '/pricing_model'), JSON.stringify(issues));
  assert.ok(issues.length <= 4, 'compact');
});

test('issues: a discriminated union given a non-object, and a union nested in a sibling branch', () => {
  const v = compileAndLoad('core/pricing-option.json');
  const r = v('cpm');
  assert.equal(r.ok ? [] : r.issues.map((i) => [i.pointer, i.keyword, i.message]), [['', 'type', `must be an object whose 'pricing_model' is one of "cpm", "vcpm", "cpc", "cpcv", "cpv", "cpp", "cpa", "flat_rate", "time"`]]);
  // The error sequence the compiled code leaves for a 3.2 signal targeting entry (value_type "binary" with a bad
  // signal_ref): arm 0's nested union (made in the signal-ref definition it calls: `via`), arm 1's missing `values`,
  // arm 2's anyOf. Only arm 0 is the caller's, and its issue names the variant the value selected.
  const at = '/signals/0';
  const disc = (property: string, values: string[]) => ({ property, allowedValues: values, branches: values.map((x) => [x]) });
  const via = ['core/signal-ref.json'];
  const errors = [
    { instancePath: `${at}/signal_ref`, schemaPath: '#/oneOf/0/not', keyword: 'not', params: {}, via },
    { instancePath: `${at}/signal_ref`, schemaPath: '#/oneOf', keyword: 'oneOf', params: { discriminator: disc('scope', ['product', 'data_provider']), arms: 2, passingSchemas: null }, via },
    { instancePath: at, schemaPath: '#/oneOf/1/required', keyword: 'required', params: { missingProperty: 'values' } },
    { instancePath: at, schemaPath: '#/oneOf/2/anyOf/0/required', keyword: 'required', params: { missingProperty: 'min_value' } },
    { instancePath: at, schemaPath: '#/oneOf/2/anyOf/1/required', keyword: 'required', params: { missingProperty: 'max_value' } },
    { instancePath: at, schemaPath: '#/oneOf/2/anyOf', keyword: 'anyOf', params: { arms: 2 } },
    { instancePath: at, schemaPath: '#/oneOf', keyword: 'oneOf', params: { discriminator: disc('value_type', ['binary', 'categorical', 'numeric']), arms: 3, passingSchemas: null } },
  ];
  const issues = toIssues(errors, { signals: [{ value_type: 'binary', signal_ref: 'not-an-object' }] });
  assert.equal(issues, [
    {
      pointer: `${at}/signal_ref`,
      keyword: 'type',
      message: `must be an object whose 'scope' is one of "product", "data_provider"`,
      discriminator: [{ property_name: 'value_type', value: 'binary' }],
    },
  ]);
  // The same run without `via` (a validator compiled before it): the arms are still told apart by schema path.
  const older = toIssues(errors.map(({ via: _via, ...e }) => e), { signals: [{ value_type: 'binary', signal_ref: 'not-an-object' }] });
  assert.not.ok(older.some((i) => /values|min_value|max_value/.test(i.message)), JSON.stringify(older));
});

test('issues: a union without a discriminator is summarised, with the closest branch first', () => {
  const v = checkRequest('create_media_buy');
  const req = clone(VALID_CMB) as Record<string, unknown>;
  req.account = { account_id: 7 };
  const r = v(req);
  const issues: Issue[] = r.ok ? [] : r.issues;
  assert.ok(issues.length >= 1 && issues.length <= 4, JSON.stringify(issues));
  assert.equal(issues[issues.length - 1]!.pointer, '/account');
  assert.equal(issues[issues.length - 1]!.keyword, 'oneOf');
  assert.ok(issues.some((i) => i.pointer === '/account/account_id' && i.keyword === 'type'), JSON.stringify(issues));
});

test('issues: toIssues copies; the validator keeps no state between calls', () => {
  const raw = requestValidator(out, '3.0', 'create_media_buy');
  const v = wrapValidator(raw);
  const bad = v({});
  assert.not.ok(bad.ok);
  assert.is(raw.errors, null, 'errors cleared from the function');
  assert.equal(v(VALID_CMB), { ok: true });
  assert.equal(v({}), bad, 'same input, same answer');
  const errors = [{ keyword: 'enum', instancePath: '/a', schemaPath: '#/enum', params: { allowedValues: ['x'] } }];
  const issues = toIssues(errors, { a: 'y' });
  (issues[0]!.allowedValues as unknown[]).push('mutated');
  assert.equal(errors[0]!.params.allowedValues, ['x']);
});

test('bad input: non-objects, __proto__/constructor keys, deep nesting, huge arrays — clean ok:false, no pollution', () => {
  const v = checkRequest('create_media_buy');
  for (const input of [undefined, null, 0, 1.5, 'x', true, [], [VALID_CMB], () => 1, Symbol('s')]) {
    const r = v(input);
    assert.is(r.ok, false, String(typeof input));
    assert.ok(!r.ok && r.issues.length > 0 && typeof r.issues[0]!.pointer === 'string');
  }
  const hostile = JSON.parse(
    '{"__proto__": {"polluted": "yes", "packages": []}, "constructor": {"prototype": {"polluted": "yes"}}, "packages": [{"__proto__": {"product_id": "x"}}]}',
  ) as unknown;
  const r = v(hostile);
  assert.is(r.ok, false);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is((Object.prototype as Record<string, unknown>).polluted, undefined);
  // An own "__proto__" key is data: a closed object rejects it by name.
  const closed = compileAndLoad('core/brand-ref.json');
  const proto = closed(JSON.parse('{"domain": "acme.example", "__proto__": {"x": 1}}'));
  assert.equal(proto.ok ? [] : proto.issues.map((i) => i.additionalProperty), ['__proto__']);

  let deep: unknown = 'leaf';
  for (let i = 0; i < 100_000; i++) deep = { ext: deep, packages: [deep] };
  const d = v(deep);
  assert.is(d.ok, false);
  const deepArray = (() => {
    let a: unknown = [];
    for (let i = 0; i < 100_000; i++) a = [a];
    return a;
  })();
  assert.is(v({ ...VALID_CMB, packages: deepArray }).ok, false);
  assert.is(v({ ...VALID_CMB, ext: deep, context: deep }).ok, true, 'deep data where the schema is open is accepted, not crashed on');

  const million = new Array(1_000_000).fill(0);
  assert.is(v({ ...VALID_CMB, packages: million }).ok, false);
  const millionPackages = new Array(1_000_000).fill({ product_id: 'p', pricing_option_id: 'o', budget: -1 });
  assert.is(v({ ...VALID_CMB, packages: millionPackages }).ok, false);
  assert.is(v(million).ok, false);

  // A stack overflow inside a validator becomes a clean failure.
  const recursive: RawValidateFn = (data: unknown): boolean => recursive(data);
  const overflow = wrapValidator(recursive)({});
  assert.equal(overflow, { ok: false, issues: [{ pointer: '', keyword: 'maxDepth', message: 'payload is nested too deeply to validate' }] });
});

test('lazy loading: a tool loads only packs of its own closure, and a definition only when a payload reaches it', () => {
  const dir = tempDir('adcp-validators-lazy-');
  writeEmitted(dir, files);
  assert.equal(loadedArtifacts(dir), []);
  const entry = 'releases/3.0/validate.cjs';
  const v = wrapValidator(requestValidator(dir, '3.0', 'create_media_buy'));
  // The entry module, and what create_media_buy's request getter requires (its root definition's pack) and beyond.
  const closure = new Set([entry, ...staticClosure(dir, relative(dir, rootPack(join(dir, entry), 'create_media_buy').file))]);
  const atLoad = loadedArtifacts(dir);
  assert.is(atLoad.filter((p) => p.includes('/packs/')).length, 1, `at load: the tool module and the pack of its root definition (${atLoad.join(', ')})`);
  assert.is(v({}).ok, false);
  assert.is(v(VALID_CMB).ok, true);
  const afterValid = loadedArtifacts(dir);
  assert.ok(afterValid.length > atLoad.length, 'packs load as the payload reaches their definitions');
  for (const p of afterValid) assert.ok(closure.has(p), `${p} is in create_media_buy's closure`);
  const packsLoaded = afterValid.filter((p) => p.includes('/packs/')).length;
  assert.ok(packsLoaded <= 12, `a valid create_media_buy loads a handful of packs (${packsLoaded})`);
  assert.ok(afterValid.length < closure.size, `${afterValid.length} of the ${closure.size} modules of the closure`);
  assert.not.ok(afterValid.some((p) => p.includes('get_products')));

  const res = responseValidators(dir, '3.0', 'create_media_buy');
  const validateResponse = wrapResponseValidator(res);
  const before = loadedArtifacts(dir);
  assert.is(validateResponse({ status: 'submitted', task_id: 't1' }).ok, true);
  assert.ok(loadedArtifacts(dir).length >= before.length);
  rmSync(dir, { recursive: true, force: true });
});

/** Files reachable from one module by its relative requires, read from disk. */
function staticClosure(dir: string, start: string): string[] {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const text = readFileSync(join(dir, p), 'utf8');
    // Getter bodies (async response schemas) are lazy: not part of the load-time closure.
    const eager = text.replace(/get "[^"]*"\(\) \{[^}]*\}/g, '');
    for (const m of eager.matchAll(/require\("([^"]+)"\)/g)) stack.push(posix.normalize(posix.join(posix.dirname(p), m[1]!)));
  }
  return [...seen].sort();
}

test('response validation: envelope fields at the root are accepted as the schema declares; status picks the async schema', () => {
  const res = wrapResponseValidator(responseValidators(out, '3.0', 'create_media_buy'));
  const success = { media_buy_id: 'mb_1', packages: [] };
  assert.is(res(success).ok, true);
  assert.is(res({ ...success, context: { correlation_id: 'c1' }, adcp_version: '3.0', task_id: 't', context_id: 'x' }).ok, true);
  assert.is(res({ status: 'submitted', task_id: 't1' }).ok, true);
  assert.is(res({ status: 'working', percentage: 50 }).ok, true);
  // The async schema is the one applied: its `ext` must be an object, which the sync success shape also says, so
  // probe with a field only the async schema constrains differently — an async body needs no media_buy_id.
  assert.is(res({ status: 'input-required', context: { correlation_id: 'c' } }).ok, true);
  assert.is(res({ status: 'completed', context: { correlation_id: 'c' } }).ok, false, 'a completed body must be a success or an error');
  assert.is(res({ errors: [{ code: 'INVALID_REQUEST', message: 'm' }] }).ok, true);
});

test('loader: artifacts may not leave the output directory', () => {
  assert.throws(() => loadArtifact(out, '../outside.cjs'), /outside the generated directory/);
  const dir = tempDir('adcp-validators-escape-');
  writeEmitted(dir, [{ path: 'a.cjs', contents: 'require("fs");', inputs: [] }]);
  assert.throws(() => loadArtifact(dir, 'a.cjs'), /only relative paths/);
});

test.run();
