/**
 * The characters XML 1.0 fourth edition allows in names (its Appendix B, unchanged since the
 * first edition): the conservative set that expat, and so Python and many other parsers, still
 * enforce. The fifth edition allows many more (Ĳ U+0132, ѐ U+0450, 㐀 U+3400 …), which those
 * parsers reject, so a name is only written as is when every edition accepts it.
 * https://www.w3.org/TR/2006/REC-xml-20060816/#CharClasses
 */

// Each list is `start-end` or `single` hexadecimal code points, as Appendix B gives them.
const BASE_CHAR =
  '41-5A 61-7A C0-D6 D8-F6 F8-FF 100-131 134-13E 141-148 14A-17E 180-1C3 1CD-1F0 1F4-1F5 ' +
  '1FA-217 250-2A8 2BB-2C1 386 388-38A 38C 38E-3A1 3A3-3CE 3D0-3D6 3DA 3DC 3DE 3E0 3E2-3F3 ' +
  '401-40C 40E-44F 451-45C 45E-481 490-4C4 4C7-4C8 4CB-4CC 4D0-4EB 4EE-4F5 4F8-4F9 531-556 ' +
  '559 561-586 5D0-5EA 5F0-5F2 621-63A 641-64A 671-6B7 6BA-6BE 6C0-6CE 6D0-6D3 6D5 6E5-6E6 ' +
  '905-939 93D 958-961 985-98C 98F-990 993-9A8 9AA-9B0 9B2 9B6-9B9 9DC-9DD 9DF-9E1 9F0-9F1 ' +
  'A05-A0A A0F-A10 A13-A28 A2A-A30 A32-A33 A35-A36 A38-A39 A59-A5C A5E A72-A74 A85-A8B A8D ' +
  'A8F-A91 A93-AA8 AAA-AB0 AB2-AB3 AB5-AB9 ABD AE0 B05-B0C B0F-B10 B13-B28 B2A-B30 B32-B33 ' +
  'B36-B39 B3D B5C-B5D B5F-B61 B85-B8A B8E-B90 B92-B95 B99-B9A B9C B9E-B9F BA3-BA4 BA8-BAA ' +
  'BAE-BB5 BB7-BB9 C05-C0C C0E-C10 C12-C28 C2A-C33 C35-C39 C60-C61 C85-C8C C8E-C90 C92-CA8 ' +
  'CAA-CB3 CB5-CB9 CDE CE0-CE1 D05-D0C D0E-D10 D12-D28 D2A-D39 D60-D61 E01-E2E E30 E32-E33 ' +
  'E40-E45 E81-E82 E84 E87-E88 E8A E8D E94-E97 E99-E9F EA1-EA3 EA5 EA7 EAA-EAB EAD-EAE EB0 ' +
  'EB2-EB3 EBD EC0-EC4 F40-F47 F49-F69 10A0-10C5 10D0-10F6 1100 1102-1103 1105-1107 1109 ' +
  '110B-110C 110E-1112 113C 113E 1140 114C 114E 1150 1154-1155 1159 115F-1161 1163 1165 1167 ' +
  '1169 116D-116E 1172-1173 1175 119E 11A8 11AB 11AE-11AF 11B7-11B8 11BA 11BC-11C2 11EB 11F0 ' +
  '11F9 1E00-1E9B 1EA0-1EF9 1F00-1F15 1F18-1F1D 1F20-1F45 1F48-1F4D 1F50-1F57 1F59 1F5B 1F5D ' +
  '1F5F-1F7D 1F80-1FB4 1FB6-1FBC 1FBE 1FC2-1FC4 1FC6-1FCC 1FD0-1FD3 1FD6-1FDB 1FE0-1FEC ' +
  '1FF2-1FF4 1FF6-1FFC 2126 212A-212B 212E 2180-2182 3041-3094 30A1-30FA 3105-312C AC00-D7A3';
const IDEOGRAPHIC = '4E00-9FA5 3007 3021-3029';
const COMBINING_CHAR =
  '300-345 360-361 483-486 591-5A1 5A3-5B9 5BB-5BD 5BF 5C1-5C2 5C4 64B-652 670 6D6-6DC ' +
  '6DD-6DF 6E0-6E4 6E7-6E8 6EA-6ED 901-903 93C 93E-94C 94D 951-954 962-963 981-983 9BC 9BE ' +
  '9BF 9C0-9C4 9C7-9C8 9CB-9CD 9D7 9E2-9E3 A02 A3C A3E A3F A40-A42 A47-A48 A4B-A4D A70-A71 ' +
  'A81-A83 ABC ABE-AC5 AC7-AC9 ACB-ACD B01-B03 B3C B3E-B43 B47-B48 B4B-B4D B56-B57 B82-B83 ' +
  'BBE-BC2 BC6-BC8 BCA-BCD BD7 C01-C03 C3E-C44 C46-C48 C4A-C4D C55-C56 C82-C83 CBE-CC4 ' +
  'CC6-CC8 CCA-CCD CD5-CD6 D02-D03 D3E-D43 D46-D48 D4A-D4D D57 E31 E34-E3A E47-E4E EB1 ' +
  'EB4-EB9 EBB-EBC EC8-ECD F18-F19 F35 F37 F39 F3E F3F F71-F84 F86-F8B F90-F95 F97 F99-FAD ' +
  'FB1-FB7 FB9 20D0-20DC 20E1 302A-302F 3099 309A';
const DIGIT =
  '30-39 660-669 6F0-6F9 966-96F 9E6-9EF A66-A6F AE6-AEF B66-B6F BE7-BEF C66-C6F CE6-CEF ' +
  'D66-D6F E50-E59 ED0-ED9 F20-F29';
const EXTENDER =
  'B7 2D0 2D1 387 640 E46 EC6 3005 3031-3035 309D-309E 30FC-30FE';

/** Flag of a character that may start a name. */
const START = 1;
/** Flag of a character that may follow the first. */
const FOLLOW = 2;

/**
 * One byte of flags per BMP code point, built once. `:` is left out of both: it is reserved for
 * namespaces, so a name never contains one.
 */
const FLAGS = buildFlags();

function buildFlags(): Uint8Array {
  const flags = new Uint8Array(0x10000);
  const mark = (list: string, flag: number): void => {
    for (const range of list.split(' ')) {
      const [first, last = first] = range.split('-') as [string, string?];
      for (let c = parseInt(first, 16); c <= parseInt(last, 16); c++)
        flags[c]! |= flag;
    }
  };
  // Name ::= (Letter | '_' | ':') (NameChar)*, Letter ::= BaseChar | Ideographic
  mark(`${BASE_CHAR} ${IDEOGRAPHIC} 5F`, START | FOLLOW);
  // NameChar ::= Letter | Digit | '.' | '-' | '_' | ':' | CombiningChar | Extender
  mark(`${DIGIT} ${COMBINING_CHAR} ${EXTENDER} 2E 2D`, FOLLOW);
  return flags;
}

/** Whether the UTF-16 unit `code` may start an XML name (`:` excluded); false for surrogates. */
export function isXmlNameStart(code: number): boolean {
  return (FLAGS[code]! & START) !== 0;
}

/** Whether the UTF-16 unit `code` may follow the first character of an XML name. */
export function isXmlNameFollow(code: number): boolean {
  return (FLAGS[code]! & FOLLOW) !== 0;
}
