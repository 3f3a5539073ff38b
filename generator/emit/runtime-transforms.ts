import type { ts as TS } from 'ts-morph';
import { typescript } from './typescript.js';

/** How runtime-bundle.ts reads and rewrites a compiled runtime module: TypeScript's own AST and transforms. */

/** What `import.meta` becomes in a runtime module compiled to a CommonJS function (a parameter of that function). */
export const IMPORT_META = '__runtimeImportMeta';

/**
 * `import.meta` → the `__runtimeImportMeta` parameter: a CommonJS function has no `import.meta`, and the runtime
 * resolves packages of the agent (the MCP SDK) from its own location. A TypeScript transform, not text replacement.
 */
export const importMetaToParameter: TS.TransformerFactory<TS.SourceFile> = (context) => (root) => {
  const ts = typescript();
  const visit = (node: TS.Node): TS.Node =>
    ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword
      ? context.factory.createIdentifier(IMPORT_META)
      : ts.visitEachChild(node, visit, context);
  return ts.visitNode(root, visit) as TS.SourceFile;
};

/**
 * Each relative import or export specifier → the module's id in the bundle (`ids`), so TypeScript's CommonJS output
 * requires `./wire/errors.js` from every folder alike. A TypeScript transform, not text replacement.
 */
export const specifiersToIds =
  (ids: ReadonlyMap<string, string>): TS.TransformerFactory<TS.SourceFile> =>
  (context) =>
  (root) => {
    const ts = typescript();
    const f = context.factory;
    const id = (spec: TS.Expression | undefined): TS.Expression | undefined =>
      spec !== undefined && ts.isStringLiteral(spec) && ids.has(spec.text) ? f.createStringLiteral(ids.get(spec.text)!) : spec;
    const statements = root.statements.map((st) => {
      if (ts.isImportDeclaration(st)) return f.updateImportDeclaration(st, st.modifiers, st.importClause, id(st.moduleSpecifier)!, st.attributes);
      if (ts.isExportDeclaration(st)) return f.updateExportDeclaration(st, st.modifiers, st.isTypeOnly, st.exportClause, id(st.moduleSpecifier), st.attributes);
      return st;
    });
    return f.updateSourceFile(root, statements);
  };

export function moduleSpecifiers(file: TS.SourceFile): string[] {
  const ts = typescript();
  const out: string[] = [];
  for (const st of file.statements) {
    if ((ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier !== undefined && ts.isStringLiteral(st.moduleSpecifier)) {
      out.push(st.moduleSpecifier.text);
    }
  }
  return out;
}

/** The value names an ES module exports (types are gone from the compiled .js). */
export function exportedNames(file: TS.SourceFile): string[] {
  const ts = typescript();
  const names: string[] = [];
  for (const st of file.statements) {
    const exported = ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported && (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name !== undefined) names.push(st.name.text);
    else if (exported && ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) throw new Error(`${file.fileName}: destructured exports are not supported in the runtime`);
        names.push(d.name.text);
      }
    } else if (ts.isExportDeclaration(st) && !st.isTypeOnly && st.exportClause !== undefined && ts.isNamedExports(st.exportClause)) {
      for (const e of st.exportClause.elements) if (!e.isTypeOnly) names.push(e.name.text);
    } else if (ts.isExportAssignment(st)) {
      throw new Error(`${file.fileName}: a default export is not supported in the runtime`);
    }
  }
  return names.sort();
}
