import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { sha256 } from './hash.js';
import { packageRoot } from './package-root.js';

/** adcp-codegen's own version, from its package.json. */
export const generatorVersion: string = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

const OUTPUT_DEPENDENCIES = ['ajv', 'ajv-formats', 'prettier', 'json-schema-to-typescript', 'handlebars'] as const;

let codeHash: string | undefined;
/**
 * The generator's version, code, templates, shipped rules and output-shaping dependencies: a changed generator must
 * not be mistaken for an up-to-date output, nor its compile units reused.
 */
export function generatorCodeHash(): string {
  if (codeHash !== undefined) return codeHash;
  const parts: string[] = [];
  for (const dir of ['dist/generator', 'dist/runtime', 'templates', 'schemas']) {
    const walk = (rel: string): void => {
      for (const name of readdirSync(join(packageRoot, rel)).sort()) {
        const path = join(rel, name);
        if (statSync(join(packageRoot, path)).isDirectory()) {
          if (rel === 'schemas' && name === 'profiles') continue;
          walk(path);
        } else if (!name.endsWith('.map')) parts.push(`${path}:${sha256(readFileSync(join(packageRoot, path)))}`);
      }
    };
    walk(dir);
  }
  // The packages whose output we write: an upgraded Ajv or prettier must not be mistaken for the same generator.
  for (const dep of OUTPUT_DEPENDENCIES) parts.push(`${dep}@${dependencyVersion(dep) ?? 'missing'}`);
  // The version is printed in every header.
  parts.push(`adcp-codegen@${generatorVersion}`);
  codeHash = sha256(parts.join('\n'));
  return codeHash;
}

const dependencyVersions = new Map<string, string | undefined>();

/**
 * The installed version of one of the generator's dependencies, from its package.json (knowing it does not load the
 * package); undefined when it does not resolve from here (the run fails later with the real error if it is needed).
 */
export function dependencyVersion(dep: string): string | undefined {
  if (!dependencyVersions.has(dep)) {
    let version: string | undefined;
    try {
      const require = createRequire(join(packageRoot, 'package.json'));
      version = (JSON.parse(readFileSync(require.resolve(`${dep}/package.json`), 'utf8')) as { version: string }).version;
    } catch {
      version = undefined;
    }
    dependencyVersions.set(dep, version);
  }
  return dependencyVersions.get(dep);
}
