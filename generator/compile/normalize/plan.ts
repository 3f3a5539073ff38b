import type { NormalizationRule, Release, SchemaFile } from '../../load/index.js';
import { escapeToken, isPlainObject } from '../../shared/index.js';

/**
 * Normalization rules: deprecated request fields translated into their current form, as data
 * (schemas/normalizations/*.json, format in schemas/normalization.schema.json), read and checked by
 * load/normalization-rules.ts. This file decides, per release and tool, which rules are emitted; compile.ts turns
 * the plan into code.
 */

/** One rule emitted for one tool of one release. */
export interface PlannedRule {
  readonly rule: NormalizationRule;
  readonly tool: string;
}

export interface NormalizationPlan {
  /** In rule-file order, then rule order: the order the compiled normalizer applies them. */
  readonly emitted: PlannedRule[];
  readonly skipped: { rule: string; tool: string; reason: string }[];
}

/**
 * Which rules apply to which tools of this release. A rule is emitted for a tool only when the tool is in the
 * release, its request declares the rule's container and target (with the shape the transform produces), and
 * the deprecated field is not a current field there (declared and not deprecated). Every other pair is skipped
 * with a reason the generator prints.
 */
export function planNormalizations(release: Release, rules: readonly NormalizationRule[]): NormalizationPlan {
  const emitted: PlannedRule[] = [];
  const skipped: NormalizationPlan['skipped'] = [];
  for (const rule of rules) {
    for (const tool of rule.tools) {
      const reason = whySkipped(release, rule, tool);
      if (reason === undefined) emitted.push({ rule, tool });
      else skipped.push({ rule: rule.id, tool, reason });
    }
  }
  return { emitted, skipped };
}

function whySkipped(release: Release, rule: NormalizationRule, toolName: string): string | undefined {
  const tool = release.tools.get(toolName);
  if (tool === undefined) return `${toolName} is not a tool of AdCP ${release.version}`;
  const missing = release.unavailable.get(toolName);
  if (missing !== undefined) return `${toolName} is unavailable in this copy of the release: ${missing}`;
  const file = release.schemas.byPath.get(tool.requestSchema)!;
  const where = rule.at.length === 0 ? 'the request' : `/${rule.at.map(escapeToken).join('/')}`;

  let containers = shapesOf(release, [{ file, schema: file.schema }]);
  for (const token of rule.at) {
    containers = token === '*' ? itemsOf(release, containers) : propertyShapes(release, containers, token);
    if (containers.length === 0) return `${where} is not declared by ${tool.requestSchema}`;
  }

  let sourceParents = containers;
  for (const [i, name] of rule.from.slice(0, -1).entries()) {
    sourceParents = propertyShapes(release, sourceParents, name);
    if (sourceParents.length === 0) return `${rule.from.slice(0, i + 1).join('.')} is not declared at ${where}`;
  }
  const fromName = rule.from.join('.');
  const source = declared(release, sourceParents, rule.from[rule.from.length - 1]!);
  if (source.current) return `${fromName} is a current field of ${where} in AdCP ${release.version}`;

  if (rule.transform.kind === 'unwrap') {
    for (const [member, target] of Object.entries(rule.transform.members)) {
      if (declared(release, containers, target).current === false) return `target ${target} (for ${fromName}.${member}) is not a current field of ${where} in AdCP ${release.version}`;
    }
    return undefined;
  }
  if (rule.to === undefined) return undefined; // drop: nothing to check on the target side
  let targets = containers;
  for (const [i, name] of rule.to.entries()) {
    // move-into-ext: `ext` is declared open, the name beneath it need not be.
    if (rule.transform.kind === 'move-into-ext' && i === 1) {
      if (!targets.some((t) => isOpenObject(t.schema))) return `ext of ${where} is not an open object in AdCP ${release.version}`;
      return undefined;
    }
    const found = declared(release, targets, name);
    if (!found.current) return `target ${rule.to.slice(0, i + 1).join('.')} is not a current field of ${where} in AdCP ${release.version}`;
    targets = found.shapes;
  }
  return shapeMismatch(release, rule, targets, where);
}

/** The transform's output has to fit the target as declared. */
function shapeMismatch(release: Release, rule: NormalizationRule, targets: Shape[], where: string): string | undefined {
  const target = `${rule.to!.join('.')} at ${where}`;
  switch (rule.transform.kind) {
    case 'wrap-array':
      return targets.some((t) => allowsType(t.schema, 'array')) ? undefined : `target ${target} is not an array in AdCP ${release.version}`;
    case 'wrap-object': {
      const key = rule.transform.key;
      return declared(release, targets, key).any ? undefined : `target ${target} declares no ${key} in AdCP ${release.version}`;
    }
    case 'url-to-domain':
      return declared(release, targets, 'domain').any ? undefined : `target ${target} declares no domain in AdCP ${release.version}`;
    default:
      return undefined;
  }
}

interface Shape {
  readonly file: SchemaFile;
  readonly schema: Record<string, unknown>;
}

/**
 * The object schemas a value at this place may match: `$ref`s followed (where the release's schema graph resolved
 * them), and
 * the arms of allOf/anyOf/oneOf and if/then/else flattened, since a property declared in any arm is declared.
 */
function shapesOf(release: Release, nodes: { file: SchemaFile; schema: unknown }[]): Shape[] {
  const out: Shape[] = [];
  const seen = new Set<unknown>();
  const visit = (file: SchemaFile, schema: unknown, depth: number): void => {
    if (!isPlainObject(schema) || seen.has(schema) || depth > 32) return;
    seen.add(schema);
    out.push({ file, schema });
    if (typeof schema.$ref === 'string') {
      const target = release.graph.target(schema);
      visit(target.file, target.schema, depth + 1);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      const arms = schema[keyword];
      if (Array.isArray(arms)) for (const arm of arms) visit(file, arm, depth + 1);
    }
    for (const keyword of ['then', 'else']) if (keyword in schema) visit(file, schema[keyword], depth + 1);
  };
  for (const n of nodes) visit(n.file, n.schema, 0);
  return out;
}

function itemsOf(release: Release, shapes: Shape[]): Shape[] {
  return shapesOf(
    release,
    shapes.filter((s) => isPlainObject(s.schema.items)).map((s) => ({ file: s.file, schema: s.schema.items })),
  );
}

function propertyShapes(release: Release, shapes: Shape[], name: string): Shape[] {
  return declared(release, shapes, name).shapes;
}

/** Whether `name` is declared in any of the shapes, whether any declaration is current (not deprecated). */
function declared(release: Release, shapes: Shape[], name: string): { any: boolean; current: boolean; shapes: Shape[] } {
  const decls: { file: SchemaFile; schema: unknown }[] = [];
  for (const s of shapes) {
    const props = s.schema.properties;
    if (isPlainObject(props) && Object.prototype.hasOwnProperty.call(props, name)) decls.push({ file: s.file, schema: props[name] });
  }
  const current = decls.some((d) => !isDeprecated(release, d.schema));
  return { any: decls.length > 0, current, shapes: shapesOf(release, decls) };
}

/**
 * `deprecated: true`, or a description that opens with "Deprecated"/"DEPRECATED" (3.0.6 marks some fields only
 * in prose), on the property or on the schema it references.
 */
export function isDeprecated(release: Release, schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  if (schema.deprecated === true) return true;
  if (typeof schema.description === 'string' && /^\W*deprecated\b/i.test(schema.description)) return true;
  if (typeof schema.$ref === 'string') {
    const target = release.graph.target(schema);
    return isPlainObject(target.schema) && target.schema.deprecated === true;
  }
  return false;
}

function allowsType(schema: Record<string, unknown>, type: string): boolean {
  const t = schema.type;
  return t === type || (Array.isArray(t) && t.includes(type)) || (type === 'array' && 'items' in schema);
}

function isOpenObject(schema: Record<string, unknown>): boolean {
  return allowsType(schema, 'object') && schema.additionalProperties !== false;
}

/** Rule files as `InputRef` names: `normalization:<file>`. */
export function ruleInput(rule: NormalizationRule): { name: string; hash: string } {
  return { name: `normalization:${rule.file}`, hash: rule.fileHash };
}

/** A request property a release marks deprecated, wherever tool requests reach it. */
export interface DeprecatedRequestField {
  /** `<schema file>#<pointer of the property schema>`: where the release declares it. */
  readonly location: string;
  readonly name: string;
  /** Tools whose request reaches it, sorted. */
  readonly tools: readonly string[];
  /** One place it appears in a request, as a path from the root (`*` for array elements). */
  readonly example: string;
  readonly description: string;
}

/**
 * Every property reachable from a tool's request schema that the release marks deprecated (`deprecated: true`,
 * or a description opening with "Deprecated"). docs/normalizations.md accounts for each: a rule, or a reason
 * there is none.
 */
export function deprecatedRequestFields(release: Release): DeprecatedRequestField[] {
  const found = new Map<string, { name: string; tools: Set<string>; example: string; description: string }>();
  for (const tool of release.tools.values()) {
    if (release.unavailable.has(tool.name)) continue;
    const root = release.schemas.byPath.get(tool.requestSchema)!;
    const seen = new Set<string>();
    const visit = (file: SchemaFile, schema: unknown, pointer: string, path: string): void => {
      if (!isPlainObject(schema)) return;
      const key = `${file.id}#${pointer}`;
      if (seen.has(key)) return;
      seen.add(key);
      if (typeof schema.$ref === 'string') {
        const target = release.graph.target(schema);
        visit(target.file, target.schema, target.pointer, path);
      }
      const props = schema.properties;
      if (isPlainObject(props)) {
        for (const name of Object.keys(props)) {
          const p = props[name];
          const at = `${pointer}/properties/${escapeToken(name)}`;
          if (isPlainObject(p) && isDeprecated(release, p)) {
            const location = `${file.path}#${at}`;
            let entry = found.get(location);
            if (entry === undefined) {
              entry = { name, tools: new Set(), example: `${path}/${name}`, description: typeof p.description === 'string' ? p.description : '' };
              found.set(location, entry);
            }
            entry.tools.add(tool.name);
          }
          visit(file, p, at, `${path}/${name}`);
        }
      }
      if (isPlainObject(schema.items)) visit(file, schema.items, `${pointer}/items`, `${path}/*`);
      if (isPlainObject(schema.additionalProperties)) visit(file, schema.additionalProperties, `${pointer}/additionalProperties`, `${path}/*`);
      for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
        const arms = schema[keyword];
        if (Array.isArray(arms)) arms.forEach((arm, i) => visit(file, arm, `${pointer}/${keyword}/${i}`, path));
      }
      for (const keyword of ['if', 'then', 'else']) if (keyword in schema) visit(file, schema[keyword], `${pointer}/${keyword}`, path);
    };
    visit(root, root.schema, '', '');
  }
  return [...found.entries()]
    .map(([location, e]) => ({ location, name: e.name, tools: [...e.tools].sort(), example: e.example, description: e.description }))
    .sort((a, b) => (a.location < b.location ? -1 : a.location > b.location ? 1 : 0));
}
