import { posix } from 'node:path';
import { asciiOnly } from './runtime-ascii.js';
import { entryModule } from './runtime-entry.js';
import { exportedNames, IMPORT_META, importMetaToParameter, moduleSpecifiers, specifiersToIds } from './runtime-transforms.js';
import { typescript } from './typescript.js';

/**
 * The runtime in a few pieces (issue 12 point 2). Importing the runtime's ES modules one by one cost ~15 ms of a
 * ~36 ms cold start: each is a separate resolve, read, parse and link. At generation the compiled runtime
 * (dist/runtime/*.js) is transpiled by TypeScript to CommonJS, each module wrapped in a function evaluated on first
 * require:
 * - the bootstrap (the loader and the private cache it reads) goes into the set's `index.js` (its `entry`), the one
 *   ES module a cold start imports: Node 20 keeps no code cache for an ES module, and each ES module is a resolve,
 *   read and link of its own;
 * - the modules a valid call reaches go into `runtime/modules.cjs`, which that loader compiles with V8's code cache
 *   like every generated module;
 * - the rest (ON_DEMAND: a rejection's issues, the transports, batch items) into one artifact per group, read the
 *   first time one of its modules is used.
 * `node:` builtins are required (CommonJS) when a module first needs them. A module the set's public types reach
 * (emit's public-types.ts) keeps `runtime/<name>.js` as a facade re-exporting its names from `index.js`, so code
 * importing `runtime/wire/errors.js` gets the same `AdcpError` class the agent uses (`instanceof` holds), and
 * `runtime/<name>.d.ts` keeps its types.
 *
 * The transformation is TypeScript's own (`transpileModule`), not string surgery: the result is only a table of
 * CommonJS module functions and a 10-line `require`.
 */

export interface RuntimeSource {
  /** `agent.js` */
  readonly name: string;
  readonly text: string;
}

export interface RuntimeBundle {
  /**
   * The runtime's entry, ES module code that becomes the second half of the set's `index.js` (one ES module to load
   * at cold start): the bootstrap modules (the loader, user-cache), `runtimeModule`, and the loading of `runtime/modules.cjs`.
   */
  readonly entry: string;
  /**
   * `runtime/modules.cjs`: the runtime modules a valid call reaches, loaded by the bundled loader with its V8 code
   * cache when index.js is imported.
   */
  readonly modules: string;
  /** file name under runtime/ → the text of one group of ON_DEMAND modules, loaded when one of them is first used. */
  readonly onDemand: ReadonlyMap<string, string>;
  /** name → facade module text */
  readonly facades: ReadonlyMap<string, string>;
}

/** `runtime/bundle.js`: the runtime's entry names (`runtimeModule`, `createAgent`), re-exported from `index.js`. */
export const BUNDLE = 'bundle.js';
export const MODULES = 'modules.cjs';
/** The facade of `runtime/bundle.js`. */
export const BUNDLE_FACADE = "export { createAgent, runtimeModule } from '../index.js';\n";

/**
 * Modules defined in the bundle itself: what is needed to load the rest (the loader, and the private cache it keeps
 * V8's code cache in). Node 20 keeps no code cache for an ES module, so the ES module is kept to this; the rest of the
 * runtime is CommonJS that the loader compiles with V8's code cache, like every other generated module.
 */
export const BOOTSTRAP: ReadonlySet<string> = new Set(['artifacts/loader.js', 'artifacts/user-cache.js']);

/**
 * Runtime modules a valid call never reaches, each group an artifact of its own that the loader reads the first time
 * one of its modules is used (a member read, not the `require`: TypeScript's CommonJS reads members at call time).
 * Together they were more than half of the runtime's text (~84 of 154 KB), read, decoded and compiled at every cold
 * start (import ~1.7 ms less, measured on a 3.0.6 create_media_buy first call). A module listed here that a valid call
 * does reach costs a file on that call, never a wrong answer: test/first-call.test.ts checks that a valid call loads
 * none of them.
 */
export const ON_DEMAND: Readonly<Record<string, readonly string[]>> = {
  // A rejection's issues: every defect named (issue 19 point 3), and the compliance controller's own error arm.
  'rejections.cjs': [
    'issues/arm-cost.js',
    'issues/collection.js',
    'issues/condition-switch.js',
    'issues/controller-rejection.js',
    'issues/explain-not.js',
    'issues/finding.js',
    'issues/issue-collect.js',
    'issues/issue-text.js',
    'issues/issue-tree.js',
    'issues/issue-wire.js',
    'issues/pattern-example.js',
    'issues/repair.js',
    'issues/switch-values.js',
    'issues/union-arms.js',
    'issues/union-hint.js',
  ],
  // The transports: a server pays for them once, at start (with the check of a handler set they register).
  'transports.cjs': ['artifacts/tools-list.js', 'call/handlers.js', 'transports/a2a.js', 'transports/call-trace.js', 'transports/mcp.js'],
  // Conversions between served releases: a set serving one release, or a call in its handler's release, never needs them.
  'conversions.cjs': ['artifacts/conversions.js'],
  // The protocol services and the store under them: made the first time a call needs one (a key to keep, a task to
  // make), or at a server's start (agent.ready()); a read-only call never loads them.
  'services.cjs': [
    'artifacts/packages.js',
    'services/account-scope.js',
    'services/builtins.js',
    'services/health.js',
    'services/idempotency/budgets.js',
    'services/idempotency/hash.js',
    'services/idempotency/records.js',
    'services/idempotency/service.js',
    'services/keys/key-material.js',
    'services/keys/keys.js',
    'services/keys/publication.js',
    'services/notifications/announce.js',
    'services/notifications/prove.js',
    'services/notifications/subscribers.js',
    'services/notifications/sync-configs.js',
    // Signed requests: an agent whose profile advertises request_signing makes its verifier at start; the SDK's
    // verifier behind it is loaded off the start path (signing/sdk.ts).
    'services/signing/envelope.js',
    'services/signing/from-profile.js',
    'services/signing/keys.js',
    'services/signing/policy.js',
    'services/signing/replay-store.js',
    'services/signing/sdk.js',
    'services/signing/verifier.js',
    'services/tasks/a2a-list.js',
    'services/tasks/a2a-tasks.js',
    'services/tasks/effects.js',
    'services/tasks/reads.js',
    'services/tasks/records.js',
    'services/tasks/result.js',
    'services/tasks/service.js',
    'services/tasks/webhook.js',
    'services/webhooks/attempt.js',
    'services/webhooks/gauges.js',
    'services/webhooks/outbox.js',
    'services/webhooks/push-config.js',
    'services/webhooks/records.js',
    'services/webhooks/schedule.js',
    'services/webhooks/sdk.js',
    'services/webhooks/setup.js',
    'services/webhooks/worker.js',
    'stores/metered.js',
    'stores/open.js',
    'stores/postgres.js',
    'stores/schema.js',
    'stores/sql.js',
    'stores/sqlite.js',
    'wire/idempotency-errors.js',
  ],
  // Per-item outcomes of batch tools (issue 19 point 2).
  'batches.cjs': ['call/items.js'],
  // The HTTP entry (agent.httpHandler, agent.serve) and the authenticators it ships: a server pays for them once, at
  // start; agent.call never reaches them.
  'http.cjs': [
    'services/auth/api-key.js',
    'services/auth/basic.js',
    'transports/http/a2a-card.js',
    'transports/http/a2a-dialects.js',
    'transports/http/a2a-endpoint.js',
    'transports/http/admit.js',
    'transports/http/authenticate.js',
    'transports/http/body.js',
    'transports/http/classify.js',
    'transports/http/drain.js',
    'transports/http/entry.js',
    'transports/http/health.js',
    'transports/http/mcp-endpoint.js',
    'transports/http/packages.js',
    'transports/http/respond.js',
    'transports/http/serve.js',
    'transports/http/start-line.js',
    'transports/http/task-store.js',
    'transports/http/tools-list-fast.js',
    'transports/http/well-known.js',
  ],
};

export function bundleRuntime(sources: readonly RuntimeSource[]): RuntimeBundle {
  const ts = typescript();
  const builtins = new Set<string>();
  const bootstrap: string[] = [];
  const modules: string[] = [];
  const groups = new Map<string, string[]>(Object.keys(ON_DEMAND).map((g) => [g, []]));
  const groupOf = new Map(Object.entries(ON_DEMAND).flatMap(([g, names]) => names.map((n) => [n, g] as const)));
  const facades = new Map<string, string>();
  const names = new Set(sources.map((s) => s.name));
  for (const source of [...sources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (source.name === BUNDLE || source.name === MODULES || groups.has(source.name)) throw new Error(`runtime/${source.name} is the bundle's own name: rename that runtime module`);
    const file = ts.createSourceFile(source.name, source.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
    // Relative imports name modules by where they sit in runtime/'s folders: each becomes the module's id in the
    // bundle (`../wire/errors.js` from `call/parse.js` is `./wire/errors.js`), one id per module wherever it is
    // required from.
    const ids = new Map<string, string>();
    for (const spec of moduleSpecifiers(file)) {
      if (spec.startsWith('node:')) {
        builtins.add(spec);
        continue;
      }
      if (!spec.startsWith('./') && !spec.startsWith('../')) throw new Error(`runtime/${source.name} imports ${spec}: the runtime may import only node: builtins and itself`);
      const target = posix.normalize(posix.join(posix.dirname(source.name), spec));
      if (!names.has(target)) throw new Error(`runtime/${source.name} imports ${spec}, which is not a runtime module`);
      if (BOOTSTRAP.has(source.name) && !BOOTSTRAP.has(target)) {
        throw new Error(`runtime/${source.name} imports ${spec}: the bootstrap (${[...BOOTSTRAP].join(', ')}) is bundled alone and may import only node: builtins and itself`);
      }
      ids.set(spec, `./${target}`);
    }
    const inBootstrap = BOOTSTRAP.has(source.name);
    const cjs = ts.transpileModule(source.text, {
      fileName: source.name,
      reportDiagnostics: false,
      transformers: { before: [importMetaToParameter, specifiersToIds(ids)] },
      // Without comments (they are in runtime/<name>.ts, and the set's runtime/<name>.d.ts keep the doc comments): a
      // cold start reads, decodes and compiles this text, index.js without a code cache, and every byte of it counts
      // towards the young generation a first call fills (measured: 5 KB more index.js put a scavenge inside the
      // first call, ~4 ms; the runtime's comments, 41 KB of its 160, cost a 3.0.6 first call ~1-2 ms).
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: false, removeComments: true },
    }).outputText.replace(/^\/\/# sourceMappingURL=.*$/m, '');
    const ascii = asciiOnly(cjs, source.name);
    const head = `  // runtime/${source.name.replace(/\.js$/, '.ts')} of adcp-codegen, its comments left out\n`;
    const group = groupOf.get(source.name);
    if (inBootstrap && group !== undefined) throw new Error(`runtime/${source.name} is the bootstrap: it cannot load on demand`);
    (inBootstrap ? bootstrap : group !== undefined ? groups.get(group)! : modules).push(`${head}  ${JSON.stringify(`./${source.name}`)}: function (exports, require, ${IMPORT_META}) {\n${ascii}\n  },`);
    const exported = exportedNames(file);
    facades.set(
      source.name,
      exported.length === 0
        ? `export {};\n`
        : `import { runtimeModule } from '${'../'.repeat(source.name.split('/').length)}index.js';\n\nexport const { ${exported.join(', ')} } = runtimeModule(${JSON.stringify(`./${source.name}`)});\n`,
    );
  }
  const table = [...builtins].sort().map((b) => `  ${JSON.stringify(b)},`);
  const onDemandTable = [...groupOf].filter(([name]) => names.has(name)).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([name, group]) => `  ${JSON.stringify(`./${name}`)}: ${JSON.stringify(`runtime/${group}`)},`);
  const entry = entryModule({ bootstrap, builtins: table, onDemand: onDemandTable, modulesFile: MODULES });
  const artifact = (what: string, defs: readonly string[]): string => ['"use strict";', '', `/** ${what} as CommonJS functions, for the loader in index.js. */`, 'module.exports = {', ...defs, '};', ''].join('\n');
  const modulesCjs = artifact('The runtime modules a valid call reaches (except the bootstrap: the loader, user-cache)', modules);
  const onDemand = new Map([...groups].filter(([, defs]) => defs.length > 0).map(([g, defs]) => [g, artifact(`Runtime modules loaded on first use (${g.replace(/\.cjs$/, '')})`, defs)]));
  return { entry, modules: modulesCjs, onDemand, facades };
}
