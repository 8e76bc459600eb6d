import { type ParseError, parse, printParseErrorCode } from "jsonc-parser";

/** What each syntax error (by the scanner's name for it) means to someone editing by hand. */
const MEANINGS: Readonly<Record<string, string>> = {
  PropertyNameExpected: "expected a property name in double quotes (a comma too many before it?)",
  ValueExpected: "expected a value (a comma too many, or a missing value?)",
  ColonExpected: "expected ':' after the property name",
  CommaExpected: "expected ',' between two values (or a list or object left open?)",
  CloseBraceExpected: "expected '}' (an object left open?)",
  CloseBracketExpected: "expected ']' (a list left open?)",
  EndOfFileExpected: "expected the end of the file after the top-level object",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfString: "a string is not closed before the end of its line",
  InvalidSymbol: "unexpected character (JSON quotes with \", not ')",
};

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

/**
 * Where a text that JSON.parse refused first goes wrong, by line and column (Node 20's own
 * message gives a character offset, or none): `fallback` when the scanner finds nothing to say.
 */
export function describeJsonSyntaxError(text: string, fallback: string): string {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true });
  const first = errors[0];
  if (!first) return fallback;
  const name = printParseErrorCode(first.error);
  const meaning = MEANINGS[name] ?? name;
  return `${lineAndColumn(text, first.offset)}: ${meaning}`;
}
