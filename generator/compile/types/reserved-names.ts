import { joinPointer, parsePointer, sha256 } from '../../shared/index.js';

/**
 * Property names a plain object inherits (`hasOwnProperty`, `constructor`, `toString`, `__proto__`, …) are legal
 * JSON Schema property names, but json-schema-to-typescript walks schema maps as plain objects: a `properties` map
 * holding `hasOwnProperty` makes its `schema.hasOwnProperty(…)` calls throw, and a `__proto__` key is one lodash
 * or a spread may turn into a prototype. So such names go through it disguised: each becomes a placeholder made of
 * letters only (which json-schema-to-typescript neither quotes as a key nor changes as a type name), and the
 * placeholders are put back in the TypeScript it returns — as a quoted property name where one is declared, as an
 * identifier (`ReservedNameHasOwnProperty`) where a definition's key became a type name.
 */

const RESERVED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Keywords whose value maps names (properties, definitions) to schemas. */
export const NAME_MAP_KEYWORDS: ReadonlySet<string> = new Set(['properties', 'definitions', '$defs', 'dependentSchemas', 'dependencies', 'dependentRequired']);

export class ReservedNames {
  private readonly prefix: string;
  private readonly byName = new Map<string, string>();

  /** `seed`: text the placeholders must not occur in (the synthetic document): they are derived from its hash. */
  constructor(seed: string) {
    this.prefix = `Zadcpname${letters(sha256(seed).slice(0, 16))}`;
  }

  /** The name as json-schema-to-typescript may see it. */
  key(name: string): string {
    if (!RESERVED.has(name)) return name;
    let placeholder = this.byName.get(name);
    if (placeholder === undefined) this.byName.set(name, (placeholder = `${this.prefix}${letters(this.byName.size.toString(16).padStart(4, '0'))}Z`));
    return placeholder;
  }

  /**
   * A JSON pointer into a schema with every name-map key disguised as `key` disguises it. Tokens alternate between
   * keyword and name positions: a name follows a name-map keyword, an index follows an array keyword.
   */
  pointer(pointer: string): string {
    let nameNext = false;
    const tokens = parsePointer(pointer).map((token) => {
      if (nameNext) {
        nameNext = false;
        return this.key(token);
      }
      nameNext = NAME_MAP_KEYWORDS.has(token);
      return token;
    });
    return joinPointer('', ...tokens);
  }

  /** The TypeScript with every placeholder put back. */
  restore(code: string): string {
    if (this.byName.size === 0) return code;
    let out = code;
    for (const [name, placeholder] of this.byName) {
      // A property signature (`Zadcp…Z?: string;`) gets its real name, quoted; anything else is a type name.
      out = out.replace(new RegExp(`\\b${placeholder}(\\??):`, 'g'), (_m, optional: string) => `${JSON.stringify(name)}${optional}:`);
      out = out.split(placeholder).join(`ReservedName${name.replace(/[^A-Za-z0-9]/g, '').replace(/^./, (c) => c.toUpperCase())}`);
    }
    return out;
  }
}

/** Hex digits as letters (`0`–`f` → `a`–`p`): placeholders hold no digit json-schema-to-typescript would recase. */
function letters(hex: string): string {
  return hex.replace(/[0-9a-f]/g, (c) => String.fromCharCode(97 + parseInt(c, 16)));
}
