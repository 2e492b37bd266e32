#!/usr/bin/env node
// Checks the layout of Web/src/ that a reader finds their way by (issue 26):
//
//   node Web/test/source-layout.mjs [SRC_DIR]              (default: Web/src/ of this repository)
//   node Web/test/source-layout.mjs --uses NAME.js [SRC_DIR]  the "Uses:" block src/ui/NAME.js should have
//
// - no file of src/ has more than MAX_LINES lines;
// - a name declared at the top level of one file of src/core/ (one function scope) is declared by no other;
// - the files of src/ui/, which build.mjs puts in name order into one function scope, share that scope
//   the way a reader can follow: a name declared at the top level of one file is declared by no other, and
//   no local variable or parameter anywhere in src/ui/ reuses it; a name is either declared in src/ui/ or
//   one of the browser's globals listed below (a typo or a leftover fails here, not in a browser);
// - a top-level variable that is given another value after its declaration is used by its own file alone:
//   the state files share is `app` of 01-page-state.js, whose members they change;
// - what runs as the script loads (a file's statements outside any function) uses nothing of a later file,
//   so no order hangs on hoisting across files;
// - the first comment of every file of src/ui/ has a "Uses:" block that names exactly what the file takes
//   from the other files (a line per file, in name order) and from GoshuinCore (`core.NAME`, each of them
//   exported by core/99-exports.js):
//
//     // Uses:
//     //   00-basics.js           count, element
//     //   GoshuinCore            formatSize, RECORDS_NAME
//
//   or "// Uses: nothing of the other files." A longer list goes on over lines that start with more spaces.
//
// The check reads the sources as text, with a small tokenizer for the ES2017 the page is written in (no
// template literals, no arrow functions in src/ui/). The last line is "source-layout: N passed, N failed".
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const MAX_LINES = 400;

/** The globals of the browser (and of the language) that src/ui/ may use. */
const BROWSER_GLOBALS = new Set([
  "AbortController", "Array", "Blob", "DataTransfer", "Date", "DecompressionStream", "Event", "GoshuinCore", "Image",
  "IntersectionObserver", "Map", "Math", "MessageChannel", "Node", "Number", "Object", "Promise", "Set", "String",
  "TextDecoder", "URL",
  "console", "createImageBitmap", "document", "performance", "scheduler", "setTimeout", "undefined", "window",
]);

const KEYWORDS = new Set([
  "async", "await", "break", "case", "catch", "class", "const", "continue", "default", "delete", "do", "else",
  "false", "finally", "for", "function", "if", "in", "instanceof", "let", "new", "null", "of", "return",
  "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "yield", "arguments",
]);

/** After these a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(["(", ",", "=", ":", "[", "!", "&", "&&", "|", "||", "?", "{", "}", ";", "+", "-", "*", "%",
  "<", ">", "~", "^", "==", "===", "!=", "!==", "<=", ">=", "return", "typeof", "instanceof", "in", "of", "new",
  "delete", "void", "throw", "case", "do", "else", "yield", "await"]);

/** After a name, these change what it holds. */
const ASSIGNMENTS = new Set(["=", "+=", "-=", "*=", "/=", "|=", "&=", "++", "--"]);

const PUNCTUATION = ["===", "!==", ">>>", "...", "&&", "||", "==", "!=", "<=", ">=", "++", "--", "+=", "-=", "*=", "/=",
  "|=", "&=", ">>", "<<", "=>", "?.", "??"];

/** Tokens of `text`: names, numbers, strings, regular expressions and punctuation, each with its line. */
export function tokenize(text, file) {
  const tokens = [];
  let at = 0;
  let line = 1;
  const fail = (message) => {
    throw new Error(`${file}:${line}: ${message}`);
  };
  while (at < text.length) {
    const c = text[at];
    if (c === "\n") {
      line++;
      at++;
    } else if (/\s/.test(c)) {
      at++;
    } else if (text.startsWith("//", at)) {
      while (at < text.length && text[at] !== "\n") at++;
    } else if (text.startsWith("/*", at)) {
      const end = text.indexOf("*/", at + 2);
      if (end < 0) fail("a comment that does not end");
      line += text.slice(at, end).split("\n").length - 1;
      at = end + 2;
    } else if (c === '"' || c === "'") {
      let end = at + 1;
      while (end < text.length && text[end] !== c) {
        if (text[end] === "\n") fail("a string that does not end on its line");
        end += text[end] === "\\" ? 2 : 1;
      }
      tokens.push({ type: "string", value: text.slice(at, end + 1), line });
      at = end + 1;
    } else if (c === "`") {
      fail("a template literal (this check does not read them)");
    } else if (/[A-Za-z_$]/.test(c)) {
      const match = /^[A-Za-z0-9_$]+/.exec(text.slice(at, at + 200));
      tokens.push({ type: "name", value: match[0], line });
      at += match[0].length;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(text[at + 1]))) {
      const match = /^(0[xXoObB][0-9a-fA-F_]+n?|[0-9_]*\.?[0-9_]*(e[+-]?[0-9]+)?n?)/.exec(text.slice(at, at + 100));
      tokens.push({ type: "number", value: match[0], line });
      at += Math.max(1, match[0].length);
    } else if (c === "/" && (tokens.length === 0 || BEFORE_REGEX.has(tokens[tokens.length - 1].value))) {
      let end = at + 1;
      let inClass = false;
      while (end < text.length && (inClass || text[end] !== "/")) {
        if (text[end] === "\n") fail("a regular expression that does not end on its line");
        if (text[end] === "\\") end++;
        else if (text[end] === "[") inClass = true;
        else if (text[end] === "]") inClass = false;
        end++;
      }
      end++;
      while (/[a-z]/.test(text[end])) end++;
      tokens.push({ type: "regex", value: text.slice(at, end), line });
      at = end;
    } else {
      const long = PUNCTUATION.find((p) => text.startsWith(p, at));
      if (long === "=>") fail("an arrow function (this check reads `function` only)");
      tokens.push({ type: "punct", value: long || c, line });
      at += long ? long.length : 1;
    }
  }
  return tokens;
}

/**
 * What one file declares and uses: `topLevel` (name → line), `locals` (name → line: variables, functions
 * and parameters inside functions), `references` ([{ name, line, loading }], `loading` when the statement
 * runs as the script loads; `assigns` when it gives the name another value), `coreMembers` (the NAMEs of
 * `core.NAME`).
 */
export function analyze(text, file) {
  const tokens = tokenize(text, file);
  const topLevel = new Map();
  const locals = new Map();
  const references = [];
  const coreMembers = new Set();
  const declared = new Set(); // token indexes that declare a name
  const braces = []; // "function" or "block", innermost last
  let functionBraces = 0;
  let pendingFunctionBody = 0; // `function` seen, its body's brace not yet
  const declare = (index, local) => {
    const token = tokens[index];
    if (!token || token.type !== "name") throw new Error(`${file}:${token ? token.line : "?"}: a declaration without a name`);
    declared.add(index);
    const table = local ? locals : topLevel;
    if (!local && table.has(token.value)) throw new Error(`${file}:${token.line}: ${token.value} is declared twice`);
    if (!table.has(token.value)) table.set(token.value, token.line);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const inFunction = functionBraces > 0 || pendingFunctionBody > 0;
    if (token.value === "{" && token.type === "punct") {
      const kind = pendingFunctionBody > 0 ? "function" : "block";
      if (kind === "function") {
        pendingFunctionBody--;
        functionBraces++;
      }
      braces.push(kind);
    } else if (token.value === "}" && token.type === "punct") {
      if (braces.pop() === "function") functionBraces--;
    } else if (token.type === "name" && token.value === "function") {
      let next = i + 1;
      if (tokens[next].value === "*") next++;
      if (tokens[next].type === "name") declare(next, inFunction || braces.length > 0 || isExpression(tokens, i));
      while (tokens[next].value !== "(") next++;
      for (next++; tokens[next].value !== ")"; next++) if (tokens[next].type === "name") declare(next, true);
      pendingFunctionBody++;
    } else if (token.type === "name" && (token.value === "var" || token.value === "let" || token.value === "const")) {
      const local = inFunction || braces.length > 0;
      declare(i + 1, local);
      // More declarators: a comma at this nesting level, before the statement's end.
      let level = 0;
      for (let next = i + 2; next < tokens.length; next++) {
        const value = tokens[next].type === "punct" ? tokens[next].value : null;
        if (value === "(" || value === "[" || value === "{") level++;
        else if (value === ")" || value === "]" || value === "}") {
          if (--level < 0) break;
        } else if (level === 0 && value === ";") break;
        else if (level === 0 && value === "," ) declare(next + 1, local);
        else if (level === 0 && tokens[next].type === "name" && (tokens[next].value === "of" || tokens[next].value === "in")) break;
      }
    } else if (token.type === "name" && token.value === "catch" && tokens[i + 1].value === "(") {
      declare(i + 2, true);
    } else if (token.type === "name" && !declared.has(i) && !KEYWORDS.has(token.value)) {
      const before = tokens[i - 1];
      const after = tokens[i + 1];
      if (before && before.value === "." && before.type === "punct") {
        if (tokens[i - 2] && tokens[i - 2].value === "core" && tokens[i - 2].type === "name") coreMembers.add(token.value);
        continue;
      }
      if (after && after.value === ":" && before && (before.value === "{" || before.value === ",")) continue; // a key
      const assigns = (after && after.type === "punct" && ASSIGNMENTS.has(after.value)) || (before && (before.value === "++" || before.value === "--"));
      references.push({ name: token.value, line: token.line, loading: !inFunction, assigns: !!assigns });
    }
  }
  return { topLevel, locals, references, coreMembers };
}

/** Whether the `function` at `index` is an expression (its name, if any, is then local to it). */
function isExpression(tokens, index) {
  const before = tokens[index - 1];
  const beforeThat = before && before.value === "async" ? tokens[index - 2] : before;
  return !!beforeThat && !(beforeThat.type === "punct" && (beforeThat.value === ";" || beforeThat.value === "}"));
}

/** The "Uses:" block of the file's first comment: Map(source → Set(names)), or null when it has none. */
export function declaredUses(text) {
  const comment = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break;
    comment.push(line);
  }
  const start = comment.findIndex((line) => /^\/\/ Uses:/.test(line));
  if (start < 0) return null;
  const uses = new Map();
  if (/^\/\/ Uses: nothing of the other files\.$/.test(comment[start])) return uses;
  if (comment[start] !== "// Uses:") return null;
  let source = null;
  for (const line of comment.slice(start + 1)) {
    const entry = /^\/\/   (\d\d-[a-z0-9-]+\.js|GoshuinCore) +([A-Za-z0-9_$, ]+)$/.exec(line);
    const more = /^\/\/ {5,}([A-Za-z0-9_$, ]+)$/.exec(line);
    if (entry) {
      source = entry[1];
      if (uses.has(source)) return null;
      uses.set(source, new Set());
    } else if (!more || source === null) break;
    for (const name of (entry ? entry[2] : more[1]).split(",")) if (name.trim()) uses.get(source).add(name.trim());
  }
  return uses;
}

function sortedNames(set) {
  return [...set].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" }) || (a < b ? -1 : 1));
}

/** Every check on `src`: { passed, failed, problems }, a check failing with one problem or more. */
export function check(src) {
  const problems = [];
  let passed = 0;
  let failed = 0;
  /** One check: `found` gets its problems. */
  const expect = (body) => {
    const found = [];
    body(found);
    if (found.length) failed++;
    else passed++;
    problems.push(...found);
  };
  const files = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(src);
  for (const path of files) {
    expect((found) => {
      const lines = readFileSync(path, "utf8").replace(/\n$/, "").split("\n").length;
      if (lines > MAX_LINES) found.push(`src/${relative(src, path)} has ${lines} lines (at most ${MAX_LINES})`);
    });
  }

  // src/core/ is one function scope too (build.mjs): a top-level name declared in two of its files is a silent
  // replacement, the later one winning everywhere (85-par2-repair.js's withNumbers once did 06-header.js's).
  expect((found) => {
    const owners = new Map();
    const coreFolder = join(src, "core");
    for (const name of readdirSync(coreFolder).filter((file) => file.endsWith(".js")).sort()) {
      readFileSync(join(coreFolder, name), "utf8").split("\n").forEach((line, index) => {
        const match = /^(?:async\s+)?(?:function\*?\s*([A-Za-z0-9_$]+)|var\s+([A-Za-z0-9_$]+)|class\s+([A-Za-z0-9_$]+))/.exec(line);
        if (!match) return;
        const declared = match[1] || match[2] || match[3];
        if (owners.has(declared)) found.push(`src/core/${name}:${index + 1}: ${declared} is declared at the top level of ${owners.get(declared)} too`);
        else owners.set(declared, name);
      });
    }
  });

  const exportsText = readFileSync(join(src, "core", "99-exports.js"), "utf8");
  const exported = new Set([...exportsText.matchAll(/^ {2}([A-Za-z0-9_$]+): /gm)].map((match) => match[1]));
  const uiFolder = join(src, "ui");
  const names = readdirSync(uiFolder).filter((name) => name.endsWith(".js")).sort();
  const texts = new Map(names.map((name) => [name, readFileSync(join(uiFolder, name), "utf8")]));
  const analyses = new Map();
  for (const name of names) {
    expect((found) => {
      try {
        analyses.set(name, analyze(texts.get(name), `src/ui/${name}`));
      } catch (error) {
        found.push(error.message);
      }
    });
  }
  const owner = new Map(); // top-level name → file
  for (const [name, analysis] of analyses) {
    expect((found) => {
      for (const [declared, line] of analysis.topLevel) {
        if (owner.has(declared)) found.push(`src/ui/${name}:${line}: ${declared} is declared at the top level of ${owner.get(declared)} too`);
        else owner.set(declared, name);
      }
    });
  }
  const changed = new Set(); // top-level names given another value after their declaration
  for (const analysis of analyses.values())
    for (const reference of analysis.references) if (reference.assigns && owner.has(reference.name)) changed.add(reference.name);
  for (const [name, analysis] of analyses) {
    const file = `src/ui/${name}`;
    const used = new Map(); // source → Set(names)
    expect((found) => {
      for (const [local, line] of analysis.locals)
        if (owner.has(local)) found.push(`${file}:${line}: the local ${local} hides the top-level ${local} of ${owner.get(local)}`);
    });
    expect((found) => {
      for (const reference of analysis.references) {
        const from = owner.get(reference.name);
        if (from === undefined) {
          if (!analysis.locals.has(reference.name) && !BROWSER_GLOBALS.has(reference.name))
            found.push(`${file}:${reference.line}: ${reference.name} is declared nowhere in src/ui/ and is no listed browser global`);
          continue;
        }
        if (from === name) continue;
        if (changed.has(reference.name))
          found.push(`${file}:${reference.line}: ${reference.name} is state of ${from}, which it changes: state that files share is app's (01-page-state.js)`);
        if (reference.loading && from > name)
          found.push(`${file}:${reference.line}: ${reference.name}, of the later ${from}, is used as the script loads`);
        if (reference.name === "core") continue; // the GoshuinCore line says what of it
        if (!used.has(from)) used.set(from, new Set());
        used.get(from).add(reference.name);
      }
      for (const member of analysis.coreMembers)
        if (!exported.has(member)) found.push(`${file}: core.${member} is not exported by core/99-exports.js`);
      if (analysis.coreMembers.size > 0) used.set("GoshuinCore", analysis.coreMembers);
    });
    expect((found) => {
      const said = declaredUses(texts.get(name));
      if (said === null) {
        found.push(`${file}: its first comment has no "Uses:" block`);
        return;
      }
      for (const source of new Set([...used.keys(), ...said.keys()])) {
        const actual = used.get(source) || new Set();
        const stated = said.get(source) || new Set();
        const missing = sortedNames([...actual].filter((n) => !stated.has(n)));
        const extra = sortedNames([...stated].filter((n) => !actual.has(n)));
        if (missing.length) found.push(`${file}: "Uses:" does not name ${missing.join(", ")} of ${source}`);
        if (extra.length) found.push(`${file}: "Uses:" names ${extra.join(", ")} of ${source}, which it does not use`);
      }
      const order = [...said.keys()];
      const expected = [...order].sort((a, b) => (a === "GoshuinCore" ? 1 : b === "GoshuinCore" ? -1 : a < b ? -1 : 1));
      if (order.join() !== expected.join()) found.push(`${file}: "Uses:" lists its sources out of name order`);
    });
  }
  return { passed, failed, problems };
}

/** The "Uses:" block that src/ui/`name` should have. */
export function usesBlock(src, name) {
  const analysis = analyze(readFileSync(join(src, "ui", name), "utf8"), name);
  const owner = new Map();
  for (const other of readdirSync(join(src, "ui")).filter((n) => n.endsWith(".js"))) {
    for (const declared of analyze(readFileSync(join(src, "ui", other), "utf8"), other).topLevel.keys()) owner.set(declared, other);
  }
  const used = new Map();
  for (const reference of analysis.references) {
    const from = owner.get(reference.name);
    if (from === undefined || from === name || reference.name === "core") continue;
    if (!used.has(from)) used.set(from, new Set());
    used.get(from).add(reference.name);
  }
  const lines = [...used.keys()].sort().map((from) => `//   ${from.padEnd(22)} ${sortedNames(used.get(from)).join(", ")}`);
  if (analysis.coreMembers.size) lines.push(`//   ${"GoshuinCore".padEnd(22)} ${sortedNames(analysis.coreMembers).join(", ")}`);
  return lines.length ? ["// Uses:", ...lines].join("\n") : "// Uses: nothing of the other files.";
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const here = dirname(fileURLToPath(import.meta.url));
  if (argv[0] === "--uses") {
    const src = argv[2] || join(here, "..", "src");
    console.log(usesBlock(src, argv[1]));
    process.exit(0);
  }
  const src = argv[0] || join(here, "..", "src");
  const { passed, failed, problems } = check(src);
  for (const problem of problems) console.log(`FAIL ${problem}`);
  console.log(`source-layout: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}
