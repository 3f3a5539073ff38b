/**
 * This user's private cache: the one place where the runtime's V8 code cache and the generator's build cache keep
 * what they derived, and the only place either reads it back from (issue 20, docs/output.md "What runs, and from
 * where").
 *
 * Where: `$ADCP_CODEGEN_CACHE_DIR` (an absolute path; a relative one means no cache), else
 * `$XDG_CACHE_HOME/adcp-codegen`, else `~/.cache/adcp-codegen`, else `<os temp>/adcp-codegen-<uid>`: never inside a
 * generated set or anything else a repository carries. The directory must be a real directory (not a link) owned by
 * this user that no one else can read or write (made `0700`); its `key` holds 32 random bytes made here, by this
 * user, on first use (`0600`, refused when anyone else could read it, as every file a git checkout writes can be).
 *
 * An entry is `MAGIC`, the key, its own name, then the payload: it is read only when it carries this store's key and
 * the name it was asked by, from a regular file (opened without following links) owned by this user that no one else
 * can read or write. So an entry that came from anywhere but this store's own writers — a file copied or extracted
 * into it, a planted one, another store's — is ignored, and so is one renamed to another name. The key is compared,
 * not used as an HMAC key: an HMAC would prove what the key's presence proves (that the writer could read a file
 * only this user can read, kept beside the entries under the same permissions) and cost a cold start loading
 * node:crypto and hashing every module (measured: ~5 ms to load it, ~1.7 ms per 300 KB hashed, against a ~10 ms
 * first call). Without a user id to compare (Windows) there is no store, and so no cache.
 *
 * Part of the runtime's bootstrap (index.js, with the loader): node: builtins only, nothing done at import.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** One kind of entry in the store (`v8`, `prettier`, …): a directory of its own, and the store's key. */
export interface CacheArea {
  readonly dir: string;
  readonly key: Buffer;
}

/** Changes whenever the entry layout does: an entry of another layout is as good as none. */
const MAGIC = Buffer.from('ADCPCG01');
const KEY_BYTES = 32;
const KEY_FILE = 'key';

/** An entry larger than this is not one of ours (the largest, a validator pack's code cache, is a few MB). */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/**
 * Per environment (tests and the benches point the store elsewhere in-process), the store found. A failure is not
 * kept: the callers keep what they asked once (the loader for its process, the build cache for its run).
 */
const stores = new Map<string, Store>();

interface Store {
  readonly dir: string;
  readonly key: Buffer;
  readonly areas: Map<string, CacheArea | null>;
}

/** The store's `area`, made when missing; null when this user has no usable private store. */
export function cacheArea(area: string): CacheArea | null {
  const store = openStore();
  if (store === null) return null;
  let known = store.areas.get(area);
  if (known === undefined) {
    const dir = join(store.dir, area);
    known = privateDirectory(dir) ? { dir, key: store.key } : null;
    store.areas.set(area, known);
  }
  return known;
}

/**
 * The payload of entry `name`, only when this store wrote it: the key and the name match, and the file is ours
 * alone. Anything else (a miss, a foreign or renamed entry, a link, a file others could write) is undefined.
 */
export function readEntry(area: CacheArea, name: string): Buffer | undefined {
  const bytes = readPrivate(join(area.dir, name), MAX_ENTRY_BYTES);
  if (bytes === undefined) return undefined;
  const nameBytes = Buffer.from(name);
  const at = MAGIC.length + KEY_BYTES + 2;
  const start = at + nameBytes.length;
  // Compared in place (no views made): a cold start reads a dozen entries.
  const ours =
    bytes.length >= start &&
    bytes.compare(MAGIC, 0, MAGIC.length, 0, MAGIC.length) === 0 &&
    bytes.compare(area.key, 0, KEY_BYTES, MAGIC.length, MAGIC.length + KEY_BYTES) === 0 &&
    bytes.readUInt16LE(MAGIC.length + KEY_BYTES) === nameBytes.length &&
    bytes.compare(nameBytes, 0, nameBytes.length, at, start) === 0;
  return ours ? bytes.subarray(start) : undefined;
}

let tmpSerial = 0;

/**
 * Writes entry `name` (its payload the concatenation of `payload`): to a new private file, renamed into place.
 * False when it could not be written, which costs a later run its time, nothing more.
 */
export function writeEntry(area: CacheArea, name: string, payload: readonly Uint8Array[]): boolean {
  const nameBytes = Buffer.from(name);
  if (nameBytes.length > 0xffff) return false;
  const head = Buffer.allocUnsafe(MAGIC.length + KEY_BYTES + 2);
  MAGIC.copy(head, 0);
  area.key.copy(head, MAGIC.length);
  head.writeUInt16LE(nameBytes.length, MAGIC.length + KEY_BYTES);
  const file = join(area.dir, name);
  const tmp = `${file}.${process.pid}-${Date.now().toString(36)}-${tmpSerial++}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([head, nameBytes, ...payload]), { mode: 0o600, flag: 'wx' });
  } catch {
    return false;
  }
  try {
    renameSync(tmp, file);
    return true;
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    return false;
  }
}

/** The places a store may be, in order: thunks, so the OS module is only asked when the environment does not say. */
function candidates(): (() => string | undefined)[] {
  const override = process.env.ADCP_CODEGEN_CACHE_DIR;
  if (override !== undefined && override !== '') return [() => (isAbsolute(override) ? override : undefined)];
  const xdg = process.env.XDG_CACHE_HOME;
  return [
    () => {
      if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'adcp-codegen');
      const home = process.env.HOME || homedir();
      return isAbsolute(home) ? join(home, '.cache', 'adcp-codegen') : undefined;
    },
    () => join(tmpdir(), `adcp-codegen-${uid}`),
  ];
}

function openStore(): Store | null {
  const env = process.env;
  const tag = `${env.ADCP_CODEGEN_CACHE_DIR}\0${env.XDG_CACHE_HOME}\0${env.HOME}`;
  const known = stores.get(tag);
  if (known !== undefined) return known;
  let store: Store | null = null;
  if (uid !== undefined) {
    for (const candidate of candidates()) {
      try {
        const dir = candidate();
        if (dir === undefined || !privateDirectory(dir, true)) continue;
        const key = storeKey(dir);
        if (key !== undefined) {
          store = { dir, key, areas: new Map() };
          break;
        }
      } catch {
        // an unreadable home, a read-only disk: the next place, or no cache
      }
    }
  }
  if (store !== null) stores.set(tag, store);
  return store;
}

/**
 * Whether `dir` is a real directory owned by this user that no one else can read or write, made (`0700`, with its
 * missing parents, as XDG asks) when it is missing.
 */
function privateDirectory(dir: string, parents = false): boolean {
  try {
    // Made only when missing (a failed mkdir throws, and building that error costs more than the lstat).
    let st = lstatSync(dir, { throwIfNoEntry: false });
    if (st === undefined) {
      try {
        mkdirSync(dir, { mode: 0o700, recursive: parents });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      st = lstatSync(dir);
    }
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The store's key: read, or made here when the store has none (linked into place, so exactly one maker wins). */
function storeKey(dir: string): Buffer | undefined {
  const file = join(dir, KEY_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    const key = readPrivate(file, KEY_BYTES);
    if (key !== undefined) return key.length === KEY_BYTES ? key : undefined;
    if (lstatSync(file, { throwIfNoEntry: false }) !== undefined) return undefined; // there, and not ours alone
    const tmp = `${file}.${process.pid}-${Date.now().toString(36)}-${tmpSerial++}.tmp`;
    writeFileSync(tmp, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      unlinkSync(tmp);
    }
  }
  return undefined;
}

/**
 * A file's bytes, only when it is a regular file (not a link: opened with O_NOFOLLOW) that this user owns and no one
 * else can read or write, of at most `max` bytes.
 */
function readPrivate(file: string, max: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== uid || (st.mode & 0o077) !== 0 || st.size === 0 || st.size > max) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    return readFully(fd, buf, 0, st.size) ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The file's first `size` bytes into `buf` at `at`; false when it ends sooner (it changed while read). */
export function readFully(fd: number, buf: Buffer, at: number, size: number): boolean {
  for (let n = 0; n < size; ) {
    const got = readSync(fd, buf, at + n, size - n, n);
    if (got === 0) return false;
    n += got;
  }
  return true;
}
