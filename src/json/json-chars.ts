/** The character codes of JSON's structure, as both the text and the byte scanners read them. */
export const QUOTE = 34;
export const BACKSLASH = 92;
export const COMMA = 44;
export const COLON = 58;
export const OPEN_ARRAY = 91;
export const CLOSE_ARRAY = 93;
export const OPEN_OBJECT = 123;
export const CLOSE_OBJECT = 125;
