import { REBASE_CODE, REBASE_SOURCE, type SchemaGraph, type SchemaLocation } from '../../load/index.js';
import { isPlainObject } from '../../shared/index.js';
import { identFragment, jsLiteral, readAccessors, tokenize, type Token } from './code.js';
import { unionHints, type UnionHint } from './unions.js';
import { branchDataPath, conditionHints, conditionSites, switchPropertySite, type ConditionSite } from './conditions.js';

/**
 * Splits Ajv's compiled code into one unit per compiled schema. With `inlineRefs: false` every `$ref` target is
 * its own Ajv function; its code refers to the other functions, schema constants, patterns, formats and runtime
 * helpers through Ajv's scope names (`validate12`, `schema31`, …), numbered in compile order. A unit is that one
 * function with its scope names replaced by local, stable names, and its references to other units kept as a list,
 * so each shared definition becomes one module that every tool requires.
 */

/** The parts of Ajv's internals the splitter reads (ajv/lib/types SourceCode, compile SchemaEnv). */
interface AjvScopeName {
  readonly str: string;
  readonly prefix: string;
  readonly value?: { readonly ref: unknown; readonly code?: unknown };
}
interface AjvSource {
  readonly validateName: { readonly str: string };
  readonly validateCode: string;
  readonly scopeValues: Readonly<Record<string, Iterable<AjvScopeName> | undefined>>;
  readonly evaluated?: unknown;
}
interface AjvSchemaEnv {
  readonly schema: unknown;
  readonly validate?: CompiledFn;
}
export interface CompiledFn {
  (data: unknown): boolean;
  readonly source?: AjvSource;
  readonly schemaEnv?: AjvSchemaEnv;
}

/** Where a compiled schema lives in the release. */
export type UnitLocation = SchemaLocation;

/** One line before the function: a binding of a local name. */
export type Binding =
  | { kind: 'unit'; local: string; unit: Unit; whole: boolean }
  | { kind: 'support'; local: string; file: string; member: string }
  /** `own`: the code reads the unit's own scope (its exports, its other bindings), so it stays with the unit. */
  | { kind: 'const'; local: string; code: string; own?: true };

export interface Unit {
  readonly location: UnitLocation;
  /** How the definition names its document at run time (`validate.location`): its `$id` after the release's prefix. */
  readonly document: string;
  /** `<file $id>#<pointer>`: unique in the release. */
  readonly uri: string;
  readonly bindings: Binding[];
  /** The function (`function validate(…) {…}`), local names only. */
  readonly code: string;
}

const SUPPORT_REQUIRES: readonly { readonly pattern: RegExp; readonly file: string; readonly local: (rest: string) => string }[] = [
  { pattern: /^require\("ajv-formats\/dist\/formats"\)((?:\.[A-Za-z_$][\w$]*|\["[^"\\]*"\])+)$/, file: 'formats.cjs', local: (rest) => `format_${identFragment(rest.split(/[.[\]"]+/).filter(Boolean).pop() ?? 'x')}` },
  { pattern: /^require\("ajv\/dist\/runtime\/equal"\)\.default$/, file: 'equal.cjs', local: () => 'func_equal' },
  { pattern: /^require\("ajv\/dist\/runtime\/ucs2length"\)(\.default)$/, file: 'ucs2length.cjs', local: () => 'func_ucs2length' },
];

export class UnitSplitter {
  private readonly units = new Map<CompiledFn, Unit>();

  constructor(
    private readonly locations: ReadonlyMap<unknown, UnitLocation>,
    private readonly graph: SchemaGraph,
    private readonly documentOf: (location: UnitLocation) => string = (l) => l.file.path,
  ) {}

  /** The unit of a compiled function, splitting it (and everything it calls) on first use. */
  unitOf(fn: CompiledFn): Unit {
    const known = this.units.get(fn);
    if (known !== undefined) return known;
    const source = fn.source;
    const env = fn.schemaEnv;
    if (source === undefined || env === undefined) throw new Error('Ajv function without source: code.source must be on');
    const location = this.locations.get(env.schema);
    if (location === undefined) throw new Error(`compiled schema not found in the release: ${JSON.stringify(env.schema).slice(0, 200)}`);
    const bindings: Binding[] = [];
    const unit: Unit = { location, document: this.documentOf(location), uri: `${location.file.id}#${location.pointer}`, bindings, code: '' };
    this.units.set(fn, unit);
    (unit as { code: string }).code = this.rewrite(fn, source, location, bindings);
    return unit;
  }

  private rewrite(fn: CompiledFn, source: AjvSource, location: UnitLocation, bindings: Binding[]): string {
    const scope = new Map<string, AjvScopeName>();
    for (const names of Object.values(source.scopeValues)) for (const n of names ?? []) scope.set(n.str, n);
    const self = source.validateName.str;
    const locals = new Map<string, string>(); // Ajv scope name → local name
    const taken = new Set<string>(['validate', 'exports', 'require', 'module']);
    const fresh = (base: string): string => {
      let name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
      taken.add(name);
      return name;
    };
    // A value bound once per unit by its text (`<prefix>_<n>`): every place naming the same value reads one binding.
    const boundBy = (prefix: string): ((code: string) => string) => {
      const locals = new Map<string, string>();
      return (code) => {
        let local = locals.get(code);
        if (local === undefined) {
          locals.set(code, (local = fresh(`${prefix}_${locals.size + 1}`)));
          bindings.push({ kind: 'const', local, code });
        }
        return local;
      };
    };
    const schemaValue = boundBy('schema'); // the value Ajv's code reads of a schema
    const hints = unionHints(location, this.graph);
    const branches = conditionSites(location);
    const conditions = conditionHints(branches);
    const usedHints = new Map<UnionHint, string>();
    // A condition's switch values, and the names each arm of an undiscriminated union declares: one binding per list.
    const switchValueList = boundBy('switch_values');
    const armNameList = boundBy('arm_names');
    const switchValues = (site: { readonly values: readonly unknown[] }): string => (site.values.length === 0 ? '' : `,switchValues:${switchValueList(jsLiteral(site.values))}`);
    const armNames = (names: readonly (readonly string[] | null)[] | undefined): string => (names === undefined ? '' : `,names:${armNameList(jsLiteral(names))}`);
    // Splices `hint` into the params of the error literal whose `params:{` opens at j (the tokens up to it first).
    const splice = (i: number, j: number, hint: string): void => {
      for (let k = i; k <= j; k++) out.push(tokens[k]!.text);
      out.push(hint, tokens[j + 1]?.text === '}' ? '' : ',');
    };
    let patterns = 0;
    const kept = new Set<string>(); // identifiers left as Ajv wrote them (its locals)

    const tokens = tokenize(source.validateCode);
    const out: string[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.kind === 'comment') continue; // Ajv's `/*# sourceURL=… */`: the module header names the schema instead
      if (t.kind === 'string' && i >= 2 && errorKeyword(tokens, i) === '"if"') {
        // A condition switching on a property its object requires: said in the `if` error's params (conditions.ts).
        const site = conditions.get(JSON.parse(t.text) as string);
        const j = paramsOpen(tokens, i);
        if (site !== undefined && j !== undefined) {
          splice(i, j, `switch:${jsLiteral(site.switch)},switchAt:${jsLiteral(site.switchAt)}${switchValues(site)}`);
          i = j;
        } else out.push(t.text);
        continue;
      }
      if (t.kind === 'string' && i >= 2 && branches.length > 0 && errorKeyword(tokens, i) !== undefined && !isUnionError(tokens, i)) {
        // An error the switch property's own schema made: the value the caller gave takes no branch.
        const own = switchPropertySite(branches, JSON.parse(t.text) as string);
        const k = paramsOpen(tokens, i);
        if (own !== undefined && k !== undefined) {
          splice(i, k, `switch:${jsLiteral(own.switch)},switchOwn:true${switchValues(own)}`);
          i = k;
          continue;
        }
        // An error made inside the `then` of such a condition carries its hint, with the data path back to its object.
        const path = JSON.parse(t.text) as string;
        let site: ConditionSite | undefined;
        let data: string | undefined;
        for (const c of branches) if (site === undefined && (data = branchDataPath(c, path)) !== undefined) site = c;
        const j = paramsOpen(tokens, i);
        if (site !== undefined && data !== undefined && j !== undefined) {
          splice(i, j, `switch:${jsLiteral(site.switch)},switchAt:${jsLiteral(`${site.switchAt.slice(0, -'/if'.length)}/then`)},switchData:${jsLiteral(data)}${switchValues(site)}`);
          i = j;
          continue;
        }
      }
      if (t.kind === 'string' && i >= 2 && isUnionError(tokens, i)) {
        const site = hints.get(JSON.parse(t.text) as string);
        const j = paramsOpen(tokens, i);
        if (site === undefined || j === undefined) out.push(t.text);
        else {
          const hint = site.hint;
          let local = hint === undefined ? undefined : usedHints.get(hint);
          if (hint !== undefined && local === undefined) {
            local = fresh(`union_${usedHints.size + 1}`);
            usedHints.set(hint, local);
            bindings.push({ kind: 'const', local, code: hintCode(hint, bindings), own: true });
          }
          splice(i, j, `${local === undefined ? '' : `discriminator:${local},`}arms:${site.arms}${armNames(site.names)}`);
          i = j;
        }
        continue;
      }
      if (t.kind !== 'ident' || t.afterDot) {
        out.push(t.text);
        continue;
      }
      if (t.text === self) {
        out.push('validate');
        continue;
      }
      const name = scope.get(t.text);
      if (name === undefined) {
        kept.add(t.text);
        out.push(t.text);
        continue;
      }
      if (name.prefix === 'schema') {
        // Hoist only the value the code reads (`schema31.properties.pacing.enum`), not the whole schema object.
        const steps = readAccessors(tokens, i + 1);
        let chosen: { value: unknown; end: number } = { value: name.value?.ref, end: i + 1 };
        for (const step of steps) {
          const v = valueAt(name.value?.ref, step.keys);
          if (v === NOT_DATA) break;
          chosen = { value: v, end: step.end };
        }
        out.push(schemaValue(jsLiteral(chosen.value)));
        i = chosen.end - 1;
        continue;
      }
      let local = locals.get(t.text);
      if (local === undefined) {
        const binding = this.bind(name, fn, fresh, () => `pattern_${++patterns}`);
        local = binding.local;
        locals.set(t.text, local);
        bindings.push(binding);
      }
      out.push(local);
    }
    // An Ajv local that happened to equal a module-level name would silently change meaning: refuse.
    for (const b of bindings) if (kept.has(b.local)) throw new Error(`generated local ${b.local} collides with a module binding`);
    let code = out.join('');
    if (source.evaluated !== undefined) code += `\nvalidate.evaluated = ${String(source.evaluated)};`;
    return code;
  }

  private bind(name: AjvScopeName, self: CompiledFn, fresh: (base: string) => string, patternName: () => string): Binding {
    const ref = name.value?.ref;
    if (name.prefix === 'validate' && typeof ref === 'function') {
      const target = this.unitOf(ref as CompiledFn);
      return { kind: 'unit', local: fresh(`validate_${unitIdent(target)}`), unit: target, whole: false };
    }
    if ((name.prefix === 'wrapper' || name.prefix === 'root') && ref !== null && typeof ref === 'object') {
      const env = ref as AjvSchemaEnv;
      const fn = env.validate;
      if (fn === undefined) throw new Error('Ajv wrapper without a compiled function');
      const target = fn === self ? undefined : this.unitOf(fn);
      if (target === undefined) return { kind: 'const', local: fresh('self'), code: 'exports', own: true };
      return { kind: 'unit', local: fresh(`ref_${unitIdent(target)}`), unit: target, whole: true };
    }
    const code = name.value?.code === undefined ? undefined : String(name.value.code);
    if (code === undefined) throw new Error(`Ajv scope value ${name.str} has no code`);
    if (name.prefix === 'pattern') {
      if (!/^new RegExp\(/.test(code)) throw new Error(`unexpected pattern code ${code}`);
      return { kind: 'const', local: fresh(patternName()), code };
    }
    if (name.prefix === 'formats' && code.startsWith('/')) {
      // A format defined by a regular expression: Ajv writes the literal itself.
      const key = (name.value as { key?: unknown } | undefined)?.key;
      return { kind: 'const', local: fresh(`format_${identFragment(String(key ?? 'regexp'))}`), code };
    }
    if (code === 'Object.prototype.hasOwnProperty') return { kind: 'const', local: fresh('func_hasOwnProperty'), code };
    // A hoisted subschema's errors taken onto its place (load/hoisted-keyword.ts).
    if (code === REBASE_CODE) return { kind: 'const', local: fresh('func_at'), code: REBASE_SOURCE };
    for (const s of SUPPORT_REQUIRES) {
      const m = s.pattern.exec(code);
      if (m) return { kind: 'support', local: fresh(s.local(m[1] ?? '')), file: s.file, member: m[1] ?? '' };
    }
    throw new Error(`Ajv scope value ${name.str} needs ${code}: the validator emitter does not vendor it`);
  }
}

/**
 * A union hint as JavaScript: its JSON params, plus for `$ref` branches a thunk returning the branch's current
 * binding (a stub until the definition is first loaded, then the function itself), so the runtime can re-run the
 * branch a discriminator value selects. The branch calls precede the error in Ajv's code, so their bindings exist.
 */
function hintCode(hint: UnionHint, bindings: readonly Binding[]): string {
  const json = jsLiteral(hint.params);
  if (!json.startsWith('{') || !hint.refs.some((r) => r !== undefined)) return json;
  const thunks = hint.refs.map((uri) => {
    const b = uri === undefined ? undefined : bindings.find((x) => x.kind === 'unit' && !x.whole && x.unit.uri === uri);
    return b === undefined ? 'null' : `() => ${b.local}`;
  });
  if (thunks.every((t) => t === 'null')) return json;
  return `${json.slice(0, -1)},"validators":[${thunks.join(',')}]}`;
}

const NOT_DATA = Symbol('not data');

/** The own data value at a path, or NOT_DATA when the path leaves plain JSON data (e.g. `.length`). */
function valueAt(root: unknown, keys: readonly (string | number)[]): unknown {
  let node = root;
  for (const key of keys) {
    if (Array.isArray(node)) {
      if (typeof key !== 'number' || key >= node.length) return NOT_DATA;
      node = node[key];
    } else if (isPlainObject(node)) {
      if (typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(node, key)) return NOT_DATA;
      node = node[key];
    } else {
      return NOT_DATA;
    }
  }
  return node;
}

/** `schemaPath:"…",keyword:"oneOf"` (or anyOf): the string token at i is the schemaPath value. */
function isUnionError(tokens: readonly Token[], i: number): boolean {
  const kw = errorKeyword(tokens, i);
  return kw === '"oneOf"' || kw === '"anyOf"';
}

/** The keyword token's text of an error literal whose schemaPath value is the string token at i (`"if"`), if it is one. */
function errorKeyword(tokens: readonly Token[], i: number): string | undefined {
  const prev = tokens[i - 2];
  const colon = tokens[i - 1];
  if (prev?.kind !== 'ident' || prev.text !== 'schemaPath' || colon?.text !== ':') return undefined;
  return tokens[i + 1]?.text === ',' && tokens[i + 2]?.text === 'keyword' && tokens[i + 3]?.text === ':' ? tokens[i + 4]?.text : undefined;
}

/** Index of the `{` opening `params:{` right after an error's keyword, if the shape is as expected. */
function paramsOpen(tokens: readonly Token[], i: number): number | undefined {
  const j = i + 5;
  if (tokens[j]?.text === ',' && tokens[j + 1]?.text === 'params' && tokens[j + 2]?.text === ':' && tokens[j + 3]?.text === '{') return j + 3;
  return undefined;
}

/** A readable identifier fragment for a unit: the last path segment and pointer tokens. */
export function unitIdent(unit: Unit): string {
  const base = unit.location.file.path.replace(/\.json$/, '').split('/').pop() ?? 'schema';
  return identFragment(`${base}${unit.location.pointer}`.replace(/\/(definitions|\$defs|properties)\//g, '_'));
}

/**
 * `core/product.json#/definitions/x`: where the definition lives, the same in every release that has it. A line feed
 * (a property name may hold one) is written `%0A`, as in a URI fragment: the error helper joins locations by them.
 */
export function unitLocation(unit: Unit): string {
  return `${unit.document}${unit.location.pointer === '' ? '' : `#${unit.location.pointer}`}`.replace(/\n/g, '%0A');
}


