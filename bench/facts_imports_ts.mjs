// The import edges of a tree as the TypeScript compiler and Node resolve them (bench/facts_imports_ts.py).
//
//     node --experimental-import-meta-resolve facts_imports_ts.mjs TYPESCRIPT_DIR ROOT < FILES > JSON
//
// FILES: the tree's JavaScript and TypeScript files, one repository-relative path a line. Every import, export-from,
// require and import() of each (ts.preProcessFile, and the syntax tree's `export * as ns from`) is resolved: in a
// .ts/.tsx/.mts/.cts file by ts.resolveModuleName with the options of the file's nearest tsconfig.json (`extends`
// followed), in a .js/.jsx/.mjs/.cjs file as Node does (require: createRequire(file).resolve; import, export-from and
// import(): the ESM resolver, import.meta.resolve with the importing file as parent, which needs the flag). Writes
// {files: {path: {config, imports: [{spec, line, syntax, target, resolved}]}}, configs: {path: {paths, baseUrl,
// pathsBase, moduleResolution}}}: `target` is the repository file resolved to (null: none, or a file outside the
// tree or in node_modules), `resolved` the absolute file found wherever it is (null: none).
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [typescriptDir, rootArg] = process.argv.slice(2);
const ts = createRequire(import.meta.url)(typescriptDir);
const root = fs.realpathSync(rootArg);
const files = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);

const TS_FILE = /\.(ts|tsx|mts|cts)$/;

function inside(absolute) {
  if (!absolute) return null;
  let real = absolute;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    return null;
  }
  const rel = path.relative(root, real);
  if (rel.startsWith("..") || path.isAbsolute(rel) || rel.split(path.sep).includes("node_modules")) return null;
  return fs.statSync(real).isFile() ? rel.split(path.sep).join("/") : null;
}

// Every module specifier of a file by the position of its opening quote, with the statement naming it, from the
// syntax tree: ts.preProcessFile, which the specifiers are taken from, leaves out `export * as ns from` (TypeScript
// 5.9), so the tree's are added to its list.
function statements(file, text) {
  const { TSX, JSX, JS, TS } = ts.ScriptKind;
  const kind = { tsx: TSX, jsx: JSX, js: JS, mjs: JS, cjs: JS }[file.split(".").pop()] ?? TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const found = new Map();
  const add = (literal, syntax) => {
    if (literal && ts.isStringLiteralLike(literal)) found.set(literal.getStart(source), { spec: literal.text, syntax });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      add(node.moduleSpecifier, !clause ? "side-effect" : clause.isTypeOnly ? "type" : "import");
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      const star = !clause ? "export-star" : ts.isNamespaceExport(clause) ? "export-star-as" : "export-from";
      add(node.moduleSpecifier, node.isTypeOnly ? "type" : star);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly ? "type" : "import-require");
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], "dynamic");
      if (ts.isIdentifier(callee) && callee.text === "require") add(node.arguments[0], "require");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, "type");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const scanned = ts.preProcessFile(text, true, true).importedFiles;
  const out = scanned.map((ref) => ({
    pos: ref.pos,
    spec: ref.fileName,
    syntax: found.get(ref.pos)?.syntax ?? "other", // a statement the tree does not hold as one of those
  }));
  const seen = new Set(scanned.map((ref) => ref.pos));
  for (const [pos, { spec, syntax }] of found) if (!seen.has(pos)) out.push({ pos, spec, syntax });
  return out.sort((a, b) => a.pos - b.pos);
}

function lineOf(text, pos) {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < pos; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

const configs = {}; // tsconfig path (repository-relative, or "" for none) -> {options, cache, summary}
const nearestConfig = {}; // directory -> config path
const configHost = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} };

function configOf(file) {
  const chain = [];
  let dir = path.dirname(path.join(root, file));
  let found = "";
  for (;;) {
    if (dir in nearestConfig) {
      found = nearestConfig[dir];
      break;
    }
    chain.push(dir);
    if (fs.existsSync(path.join(dir, "tsconfig.json"))) {
      found = path.relative(root, path.join(dir, "tsconfig.json")).split(path.sep).join("/");
      break;
    }
    if (dir === root || path.dirname(dir) === dir) break;
    dir = path.dirname(dir);
  }
  for (const d of chain) nearestConfig[d] = found;
  if (!(found in configs)) {
    let options = {};
    if (found) {
      const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, found), undefined, configHost);
      options = parsed ? parsed.options : {};
    }
    const cache = ts.createModuleResolutionCache(root, (s) => s, options);
    const base = options.pathsBasePath ?? options.baseUrl;
    configs[found] = {
      options,
      cache,
      summary: {
        paths: options.paths ?? null,
        baseUrl: options.baseUrl ? path.relative(root, options.baseUrl).split(path.sep).join("/") : null,
        pathsBase: base ? path.relative(root, base).split(path.sep).join("/") : null,
        moduleResolution: ts.ModuleResolutionKind[ts.getEmitModuleResolutionKind(options)] ?? null,
      },
    };
  }
  return found;
}

function resolveTs(file, spec, syntax, configPath) {
  const { options, cache } = configs[configPath];
  const absolute = path.join(root, file);
  let mode = ts.getImpliedNodeFormatForFile(absolute, cache.getPackageJsonInfoCache(), ts.sys, options);
  if (syntax === "require" || syntax === "import-require") mode = ts.ModuleKind.CommonJS;
  else if (syntax === "dynamic") mode = ts.ModuleKind.ESNext;
  const result = ts.resolveModuleName(spec, absolute, options, ts.sys, cache, undefined, mode);
  return result.resolvedModule ? result.resolvedModule.resolvedFileName : null;
}

function resolveJs(file, spec, syntax) {
  const absolute = path.join(root, file);
  try {
    if (syntax === "require") {
      const found = createRequire(absolute).resolve(spec);
      return path.isAbsolute(found) ? found : null; // a builtin module: `fs`
    }
    // the ESM resolver names a file without looking for it (Node 20): loading one that is not there fails
    const url = import.meta.resolve(spec, pathToFileURL(absolute).href);
    const found = url.startsWith("file:") ? fileURLToPath(url) : null; // node:fs and data: URLs are no file
    return found && fs.statSync(found, { throwIfNoEntry: false })?.isFile() ? found : null;
  } catch {
    return null; // not found: a package not installed, a path that is not there
  }
}

const out = { files: {}, configs: {} };
for (const file of files) {
  let text;
  try {
    text = fs.readFileSync(path.join(root, file), "utf8");
  } catch {
    continue;
  }
  const isTs = TS_FILE.test(file);
  const configPath = isTs ? configOf(file) : null;
  const imports = [];
  for (const { pos, spec, syntax } of statements(file, text)) {
    const resolved = isTs ? resolveTs(file, spec, syntax, configPath) : resolveJs(file, spec, syntax);
    imports.push({ spec, line: lineOf(text, pos), syntax, target: inside(resolved), resolved });
  }
  out.files[file] = { config: configPath, imports };
}
for (const [p, c] of Object.entries(configs)) out.configs[p] = c.summary;
process.stdout.write(JSON.stringify(out));
