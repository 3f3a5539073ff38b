import { cacheArea, readEntry, writeEntry, type CacheArea } from '../../runtime/artifacts/user-cache.js';

/**
 * The generator's build cache: results this user's generator derived on this machine, kept as data in this user's
 * private cache (runtime/user-cache.ts, the store the runtime's code cache uses): prettier's output, each release's
 * compiled capabilities validator, the files each compile unit produced, the manifests of sets it wrote or checked.
 * An entry is read only when the store's key authenticates it, so nothing another party put anywhere — a planted or
 * restored `node_modules/.cache`, a file committed to the agent's repository, an entry copied in from another store —
 * is ever taken for a result; losing the cache costs only time. ADCP_CODEGEN_NO_CACHE=1 turns it off (every run is
 * then a cold one).
 */
export interface BuildCache {
  /** The entry `key` (a hex digest of everything it was made from) of `area`, when this store wrote it. */
  get(area: BuildCacheArea, key: string): string | undefined;
  set(area: BuildCacheArea, key: string, contents: string): void;
  /** Set when this user has no usable private cache (ADCP_CODEGEN_NO_CACHE aside): what a user should be told. */
  readonly unusable?: string;
}

/**
 * `prettier`: formatted text by input; `capabilities`: Ajv standalone code of a release's capabilities validator;
 * `units`: per compile-unit key, the hashes of the finished files it produced; `sets`: manifests of sets this
 * generator wrote, or compiled from scratch and found in step (by their own hash).
 */
export type BuildCacheArea = 'prettier' | 'capabilities' | 'units' | 'sets';

/**
 * The build cache; `{ read: false }` records results but reads none (`--check` compiles from scratch, whatever the
 * cache holds).
 */
export function buildCache(options: { read: boolean } = { read: true }): BuildCache {
  if (process.env.ADCP_CODEGEN_NO_CACHE) return NO_CACHE;
  // Each area looked up once per cache (per run): a store that is not usable is not tried again for every entry.
  const areas = new Map<BuildCacheArea, CacheArea | null>();
  const area = (name: BuildCacheArea): CacheArea | null => {
    let known = areas.get(name);
    if (known === undefined) areas.set(name, (known = cacheArea(name)));
    return known;
  };
  if (area('units') === null) {
    const unusable =
      process.getuid === undefined
        ? 'no private cache on this platform (no user id to check its ownership against)'
        : 'no private cache usable: $ADCP_CODEGEN_CACHE_DIR (absolute), else $XDG_CACHE_HOME/adcp-codegen, else ~/.cache/adcp-codegen, else <temp>/adcp-codegen-<uid>, must be a directory this user owns that no one else can read or write';
    return { ...NO_CACHE, unusable: `${unusable}; every run compiles everything` };
  }
  return {
    get: (name, key) => {
      if (!options.read) return undefined;
      const dir = area(name);
      return dir === null ? undefined : readEntry(dir, key)?.toString('utf8');
    },
    set: (name, key, contents) => {
      const dir = area(name);
      if (dir !== null) writeEntry(dir, key, [Buffer.from(contents)]);
    },
  };
}

const NO_CACHE: BuildCache = { get: () => undefined, set: () => undefined };
