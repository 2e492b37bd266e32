// The bundler of the page's ES modules (Web/src/core/*.mjs, Web/src/ui/*.mjs) for build.mjs: a page opened
// from file:// cannot load module scripts, so the modules become one classic script, each module's text in
// one function scope after the modules it imports (a module's statements run after theirs, as in ES module
// order), its `import` statements and `export` keywords removed. That is sound because of what it checks:
// every name a module imports is exported by that module, under the same name (no `as`); no two modules
// declare the same top-level name (one scope); and the only other imports are the ones the caller names
// (`outside`: a namespace of another bundle, or the classic part of Web/wasm/kernels.mjs). And one concept a
// file: no module of more than MAX_LINES lines.
// No dependency outside Node's own modules.
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

export const MAX_LINES = 400;

const IMPORT = /^import\s+(?:\{([^}]*)\}|\*\s+as\s+([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*))\s+from\s+"([^"]+)";[ \t]*\n?/gm;
const EXPORT_LIST = /^export\s*\{([^}]*)\};[ \t]*\n?/gm;
const DECLARATION = /^(export\s+)?(?:async\s+)?(?:function\s*\*?|class|var|let|const)\s*([A-Za-z_$][\w$]*)/gm;

function names(list) {
  return list
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

/** A module's text parsed: its imports, the names it exports, those it declares at its top level. */
function parse(path, root) {
  const text = readFileSync(path, "utf8").replace(/\r\n/g, "\n");
  const label = relative(root, path);
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > MAX_LINES) throw new Error(`${label}: ${lines} lines; a module holds one concept, in at most ${MAX_LINES}`);
  const imports = [];
  for (const match of text.matchAll(IMPORT)) {
    const [, list, namespace, single, from] = match;
    if (list !== undefined && /\bas\b/.test(list)) throw new Error(`${label}: an import renamed with "as" (the bundle has one scope)`);
    imports.push({ names: list !== undefined ? names(list) : [], namespace, single, path: resolve(dirname(path), from) });
  }
  const exported = new Set();
  const declared = [];
  for (const match of text.matchAll(DECLARATION)) {
    declared.push(match[2]);
    if (match[1]) exported.add(match[2]);
  }
  for (const match of text.matchAll(EXPORT_LIST)) for (const name of names(match[1])) exported.add(name);
  if (/^export\s+default\b/m.test(text)) throw new Error(`${label}: a default export (give it a name)`);
  const body = text.replace(IMPORT, "").replace(EXPORT_LIST, "").replace(/^export\s+/gm, "");
  return { path, label, imports, exported, declared, body };
}

/**
 * One function scope's text of the modules `entries` (paths) and all they import, each after those it
 * imports. `outside`: { [path]: { namespace: "NAME", exported: Set } | { classic: text, name } } for the
 * imports of other bundles or of classic scripts; what they give is declared first. Returns { text,
 * exported } with the names the entries export.
 */
export function bundle(entries, root, outside = {}) {
  const modules = new Map();
  const order = [];
  const preamble = [];
  const owners = new Map();
  const visit = (path, from) => {
    if (outside[path]) return;
    if (modules.has(path)) return;
    let module;
    try {
      module = parse(path, root);
    } catch (error) {
      if (error.code === "ENOENT") throw new Error(`${from}: imports ${relative(root, path)}, which does not exist`);
      throw error;
    }
    modules.set(path, module);
    for (const { path: next } of module.imports) visit(next, module.label);
    order.push(module);
  };
  entries.forEach((entry) => visit(entry, "the build"));
  const given = new Set();
  for (const module of order) {
    for (const { names: list, namespace, single, path } of module.imports) {
      const external = outside[path];
      const target = external ? null : modules.get(path);
      if (external && external.classic !== undefined) {
        if (single !== external.name || list.length || namespace)
          throw new Error(`${module.label}: imports ${relative(root, path)} other than as "import ${external.name} from"`);
        if (!given.has(path)) preamble.push(external.classic);
      } else if (external) {
        if (namespace !== external.namespace)
          throw new Error(`${module.label}: imports ${relative(root, path)} other than as "import * as ${external.namespace}"`);
        if (!given.has(path)) preamble.push(`var ${external.namespace} = ${external.global};\n`);
      } else {
        if (namespace || single) throw new Error(`${module.label}: a namespace or default import of ${target.label} (import its names)`);
        for (const name of list)
          if (!target.exported.has(name)) throw new Error(`${module.label}: imports ${name}, which ${target.label} does not export`);
      }
      given.add(path);
    }
    for (const name of module.declared) {
      if (owners.has(name)) throw new Error(`${module.label}: declares ${name}, which ${owners.get(name)} declares too (the bundle has one scope)`);
      owners.set(name, module.label);
    }
  }
  const text =
    preamble.join("\n") + order.map((module) => `// ---- ${module.label}\n${module.body.trim()}\n`).join("\n");
  const exported = new Set();
  entries.forEach((entry) => modules.get(entry).exported.forEach((name) => exported.add(name)));
  return { text, exported };
}

/** `{ name: name, … }` of `exported`, the namespace object a bundle gives. */
export function namespaceObject(exported) {
  return "{\n" + [...exported].map((name) => `  ${name}: ${name},`).join("\n") + "\n}";
}
