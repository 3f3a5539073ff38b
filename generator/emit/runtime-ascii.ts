import type { ts as TS } from 'ts-morph';
import { typescript } from './typescript.js';

interface TokenKinds {
  /** Token kinds whose text may hold any character, and where `\\uXXXX` spells the same one (comments: a mere note). */
  readonly escapable: ReadonlySet<TS.SyntaxKind>;
  /** Tokens after which `/` divides (anything else starts a regular expression). */
  readonly regexpNotAfter: ReadonlySet<TS.SyntaxKind>;
  /** Tokens a template literal's tag ends with. */
  readonly tagEnds: ReadonlySet<TS.SyntaxKind>;
}

let tokenKinds: TokenKinds | undefined;
function kinds(): TokenKinds {
  const ts = typescript();
  return (tokenKinds ??= { escapable: escapableKinds(ts), regexpNotAfter: regexpNotAfterKinds(ts), tagEnds: new Set([ts.SyntaxKind.Identifier, ts.SyntaxKind.CloseParenToken, ts.SyntaxKind.CloseBracketToken]) });
}

const escapableKinds = (ts: typeof TS): Set<TS.SyntaxKind> => new Set([
  ts.SyntaxKind.SingleLineCommentTrivia,
  ts.SyntaxKind.MultiLineCommentTrivia,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);

/**
 * The code with every non-ASCII character written as a `\\uXXXX` escape, so the text V8 compiles at a cold start is
 * one byte per character (a single `—` in a comment made the whole runtime a two-byte string: ~1 ms more to decode,
 * compare and compile). Done on TypeScript's own tokens: inside string, template and regular-expression literals the
 * escape denotes the same character, in comments it is only text; anywhere else (an identifier, a tagged template,
 * whose raw text would change) the runtime is refused.
 */
export function asciiOnly(code: string, name: string): string {
  if (!/[^\x00-\x7f]/.test(code)) return code;
  const ts = typescript();
  const { escapable: ESCAPABLE, regexpNotAfter: REGEXP_NOT_AFTER, tagEnds: TAG_ENDS } = kinds();
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, false, ts.LanguageVariant.Standard, code);
  const braces: number[] = []; // per open template substitution, the brace depth inside it
  let out = '';
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) {
      if (!REGEXP_NOT_AFTER.has(previous)) kind = scanner.reScanSlashToken();
    } else if (kind === ts.SyntaxKind.OpenBraceToken && braces.length > 0) {
      braces[braces.length - 1]!++;
    } else if (kind === ts.SyntaxKind.CloseBraceToken && braces.length > 0) {
      if (braces[braces.length - 1] === 0) kind = scanner.reScanTemplateToken(false);
      else braces[braces.length - 1]!--;
    }
    if (kind === ts.SyntaxKind.TemplateHead) braces.push(0);
    else if (kind === ts.SyntaxKind.TemplateTail) braces.pop();
    const text = scanner.getTokenText();
    if (/[^\x00-\x7f]/.test(text)) {
      const tagged = (kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral || kind === ts.SyntaxKind.TemplateHead) && TAG_ENDS.has(previous);
      if (!ESCAPABLE.has(kind) || tagged) throw new Error(`runtime/${name}: a non-ASCII character outside a comment or literal (${ts.SyntaxKind[kind]}): write it as an escape`);
      out += text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    } else {
      out += text;
    }
    if (kind !== ts.SyntaxKind.WhitespaceTrivia && kind !== ts.SyntaxKind.NewLineTrivia && kind !== ts.SyntaxKind.SingleLineCommentTrivia && kind !== ts.SyntaxKind.MultiLineCommentTrivia) previous = kind;
  }
  return out;
}

const regexpNotAfterKinds = (ts: typeof TS): Set<TS.SyntaxKind> => new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.PlusPlusToken,
  ts.SyntaxKind.MinusMinusToken,
]);
