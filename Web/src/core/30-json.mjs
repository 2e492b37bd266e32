// A strict JSON parser (RFC 8259) for untrusted input: valid UTF-8 only, no duplicate key, no lone
// surrogate, no unescaped control character, nothing after the value, nesting at most 32 deep. Numbers
// are kept as their text so that "1", "1.0" and "1e0" can be told apart.

var JSON_MAX_DEPTH = 32;

export class JsonSyntaxError extends Error {}

export function parseStrictJson(bytes) {
  var text;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new JsonSyntaxError("invalid UTF-8");
  }
  var at = 0;

  function fail(reason) {
    throw new JsonSyntaxError(reason + " at character " + at);
  }
  function whitespace() {
    while (at < text.length) {
      var c = text.charCodeAt(at);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) at++;
      else break;
    }
  }
  function literal(word, value) {
    if (text.startsWith(word, at)) {
      at += word.length;
      return value;
    }
    fail("expected " + word);
  }
  function hexQuad() {
    var digits = text.substr(at, 4);
    if (!/^[0-9A-Fa-f]{4}$/.test(digits)) fail("bad \\u escape");
    at += 4;
    return parseInt(digits, 16);
  }
  function string() {
    at++;
    var out = "";
    var run = at;
    while (true) {
      if (at >= text.length) fail("unterminated string");
      var c = text.charCodeAt(at);
      if (c === 0x22) {
        out += text.slice(run, at);
        at++;
        return out;
      }
      if (c < 0x20) fail("control character in a string");
      if (c !== 0x5c) {
        at++;
        continue;
      }
      out += text.slice(run, at);
      at++;
      var e = text[at++];
      if (e === '"') out += '"';
      else if (e === "\\") out += "\\";
      else if (e === "/") out += "/";
      else if (e === "b") out += "\b";
      else if (e === "f") out += "\f";
      else if (e === "n") out += "\n";
      else if (e === "r") out += "\r";
      else if (e === "t") out += "\t";
      else if (e === "u") {
        var first = hexQuad();
        if (first >= 0xd800 && first < 0xdc00) {
          if (text[at] !== "\\" || text[at + 1] !== "u") fail("lone surrogate");
          at += 2;
          var second = hexQuad();
          if (!(second >= 0xdc00 && second < 0xe000)) fail("lone surrogate");
          out += String.fromCharCode(first, second);
        } else if (first >= 0xdc00 && first < 0xe000) {
          fail("lone surrogate");
        } else {
          out += String.fromCharCode(first);
        }
      } else fail("bad escape");
      run = at;
    }
  }
  function number() {
    var match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(at, at + 400));
    if (!match) fail("bad number");
    if (match[0].length === 400) fail("number too long");
    at += match[0].length;
    return { type: "number", text: match[0] };
  }
  function value(depth) {
    if (depth > JSON_MAX_DEPTH) fail("nesting deeper than " + JSON_MAX_DEPTH);
    var c = text[at];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return { type: "string", value: string() };
    if (c === "t") return literal("true", { type: "boolean", value: true });
    if (c === "f") return literal("false", { type: "boolean", value: false });
    if (c === "n") return literal("null", { type: "null" });
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    fail("expected a value");
  }
  function object(depth) {
    at++;
    var members = new Map();
    whitespace();
    if (text[at] === "}") {
      at++;
      return { type: "object", members: members };
    }
    while (true) {
      whitespace();
      if (text[at] !== '"') fail("expected a key");
      var key = string();
      if (members.has(key)) fail('duplicate key "' + key + '"');
      whitespace();
      if (text[at] !== ":") fail("expected :");
      at++;
      whitespace();
      members.set(key, value(depth + 1));
      whitespace();
      if (text[at] === ",") {
        at++;
        continue;
      }
      if (text[at] !== "}") fail("expected , or }");
      at++;
      return { type: "object", members: members };
    }
  }
  function array(depth) {
    at++;
    var elements = [];
    whitespace();
    if (text[at] === "]") {
      at++;
      return { type: "array", elements: elements };
    }
    while (true) {
      whitespace();
      elements.push(value(depth + 1));
      whitespace();
      if (text[at] === ",") {
        at++;
        continue;
      }
      if (text[at] !== "]") fail("expected , or ]");
      at++;
      return { type: "array", elements: elements };
    }
  }

  whitespace();
  var result = value(0);
  whitespace();
  if (at !== text.length) fail("unexpected content after the value");
  return result;
}

/** A JSON number's value when it is written with digits only (no sign, not even -0, no fraction or
 * exponent) and is at most 2^53 − 1; otherwise null. */
export function jsonDigits(node) {
  if (!node || node.type !== "number" || !/^(0|[1-9][0-9]*)$/.test(node.text) || node.text.length > 16) return null;
  var value = Number(node.text);
  return value > Number.MAX_SAFE_INTEGER ? null : value;
}
