/**
 * A short string a JSON Schema `pattern` accepts, for the placeholders of the issue collection (issue-collect.ts):
 * a missing `brand` becomes `{ domain: "a" }` rather than ending the collection at its domain pattern. Handles what
 * AdCP's patterns use — anchors, literals, escapes, classes, groups, alternation, quantifiers — taking the fewest
 * repetitions and the first alternative; anything else (a back-reference, say) gives up. The result is always
 * checked against the pattern itself (`u` flag, as the validators compile it), so a wrong guess is never used.
 * Copied into the generated output with the rest of the runtime.
 */

/** Patterns longer than this are not attempted (the collection then stops there, as before). */
const MAX_PATTERN = 512;
/** Repetitions a `{n}` may ask for. */
const MAX_REPEAT = 256;

export function patternExample(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN) return undefined;
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  let out: string | undefined;
  try {
    out = new Parser(pattern).alternation();
  } catch {
    return undefined;
  }
  return out !== undefined && re.test(out) ? out : undefined;
}

/** Gives up on a construct it does not model. */
class Unsupported extends Error {}

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  alternation(): string {
    const first = this.sequence();
    while (this.peek() === '|') {
      this.i++;
      this.sequence(); // later alternatives are parsed (to find the group's end) and not used
    }
    return first;
  }

  private sequence(): string {
    let out = '';
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      const times = this.quantifier();
      out += atom.repeat(times);
    }
    return out;
  }

  private atom(): string {
    const c = this.src[this.i++]!;
    switch (c) {
      case '^':
      case '$':
        return '';
      case '.':
        return 'a';
      case '(': {
        let lookaround = false;
        if (this.peek() === '?') {
          const next = this.src[this.i + 1];
          if (next === ':') this.i += 2;
          else if (next === '=' || next === '!') {
            this.i += 2;
            lookaround = true;
          } else if (next === '<' && this.src[this.i + 2] !== '=' && this.src[this.i + 2] !== '!') {
            const close = this.src.indexOf('>', this.i);
            if (close < 0) throw new Unsupported();
            this.i = close + 1;
          } else throw new Unsupported();
        }
        const inner = this.alternation();
        if (this.src[this.i++] !== ')') throw new Unsupported();
        return lookaround ? '' : inner;
      }
      case '[':
        return this.charClass();
      case '\\':
        return this.escape(false);
      default:
        return c;
    }
  }

  private quantifier(): number {
    const c = this.peek();
    let min = 1;
    if (c === '*' || c === '?') {
      this.i++;
      min = 0;
    } else if (c === '+') {
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (m === null) return 1; // a literal `{`
      this.i += m[0].length;
      min = Number(m[1]);
      if (min > MAX_REPEAT) throw new Unsupported();
    } else return 1;
    if (this.peek() === '?') this.i++; // lazy: the same fewest repetitions
    return min;
  }

  private charClass(): string {
    const negated = this.peek() === '^';
    if (negated) this.i++;
    const members: ((ch: string) => boolean)[] = [];
    let first: string | undefined;
    let start = true;
    while (this.i < this.src.length && (this.peek() !== ']' || start)) {
      start = false;
      let lo = this.src[this.i++]!;
      let test: (ch: string) => boolean;
      if (lo === '\\') {
        const e = this.escape(true);
        lo = e;
        test = CLASS_ESCAPES[this.src[this.i - 1]!] ?? ((ch) => ch === e);
      } else test = (ch) => ch === lo;
      if (this.peek() === '-' && this.src[this.i + 1] !== ']' && this.i + 1 < this.src.length) {
        this.i++;
        let hi = this.src[this.i++]!;
        if (hi === '\\') hi = this.escape(true);
        const [a, b] = [lo.codePointAt(0)!, hi.codePointAt(0)!];
        test = (ch) => ch.codePointAt(0)! >= a && ch.codePointAt(0)! <= b;
      }
      members.push(test);
      first ??= lo;
    }
    if (this.src[this.i++] !== ']') throw new Unsupported();
    if (!negated) return first ?? '';
    const pick = CANDIDATES.find((ch) => !members.some((m) => m(ch)));
    if (pick === undefined) throw new Unsupported();
    return pick;
  }

  private escape(inClass: boolean): string {
    const c = this.src[this.i++];
    if (c === undefined) throw new Unsupported();
    switch (c) {
      case 'd':
        return '0';
      case 'w':
      case 'D':
      case 'S':
        return 'a';
      case 'W':
        return '-';
      case 's':
        return ' ';
      case 'b':
      case 'B':
        if (inClass) return '\b';
        return '';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'u': {
        const m = /^\{([0-9a-fA-F]+)\}|^([0-9a-fA-F]{4})/.exec(this.src.slice(this.i));
        if (m === null) throw new Unsupported();
        this.i += m[0].length;
        return String.fromCodePoint(parseInt(m[1] ?? m[2]!, 16));
      }
      case 'x': {
        const hex = this.src.slice(this.i, this.i + 2);
        this.i += 2;
        return String.fromCharCode(parseInt(hex, 16));
      }
      case 'p':
      case 'P': {
        const close = this.src.indexOf('}', this.i);
        if (close < 0) throw new Unsupported();
        this.i = close + 1;
        return 'a';
      }
      default:
        if (/[1-9]/.test(c)) throw new Unsupported(); // a back-reference
        return c;
    }
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }
}

const CLASS_ESCAPES: Readonly<Record<string, (ch: string) => boolean>> = {
  d: (ch) => /\d/.test(ch),
  w: (ch) => /\w/.test(ch),
  s: (ch) => /\s/.test(ch),
};

/** Characters tried for a negated class, most neutral first. */
const CANDIDATES = ['a', 'x', 'A', '0', '_', '-', '.', ' ', '~'];
