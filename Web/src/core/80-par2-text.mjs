// The text of PAR 2.0 packets (a file's name, a creator's text), as the page shows it: escaped, never markup.

/**
 * A name or a creator's text for a message: UTF-8 (bytes that are not, as U+FFFD), control characters as \xHH,
 * at most `limit` characters. It only ever reaches the page as text.
 */
export function printable(bytes, limit) {
  var text = new TextDecoder("utf-8").decode(bytes);
  var shown = Array.from(text);
  var out = shown
    .slice(0, limit)
    .map(function (ch) {
      var code = ch.codePointAt(0);
      if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return "\\x" + (code < 16 ? "0" : "") + code.toString(16);
      // Marks that reorder or hide the text around them (bidirectional controls, line and paragraph separators).
      if (code === 0x200e || code === 0x200f || (code >= 0x2028 && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069))
        return "\\u" + code.toString(16);
      return ch;
    })
    .join("");
  return shown.length > limit ? out + "…" : out;
}

/** `bytes` without the zeros that pad it to a multiple of 4 (a name's, a creator's text's). */
export function trailingZerosTrimmed(bytes) {
  var end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.slice(0, end);
}
