// What each call of a TypeScript project calls, as the TypeScript compiler's checker resolves it: the ground
// truth of bench/facts_calls_ts.py. Run by it as
//     node facts_calls_ts.mjs TYPESCRIPT_MODULE PROJECT_DIR > sites.jsonl
// One JSON line per call site of the project's own .ts/.tsx files (not .d.ts; with `js`, its .js files): its file, the line of the
// called name, the name, and what the checker says it calls: the declaration's file and line when the
// project declares it, "outside" when a library does (lib.d.ts: `xs.map()`), "unknown" when the checker
// cannot say (a value of type any, as an import of a package not installed gives) or says only what the
// project's own .d.ts files declare of its JavaScript.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [typescriptPath, root, language = "ts"] = process.argv.slice(2);
// "js": a JavaScript project, read as the checker reads JavaScript (`allowJs`: CommonJS and JSDoc types too)
const SOURCE = language === "js" ? /\.(js|cjs|mjs)$/ : /\.(ts|tsx|mts|cts)$/;
const ts = createRequire(import.meta.url)(typescriptPath);

function sources(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sources(full, out);
    else if (SOURCE.test(entry.name) && !/\.d\.[mc]?ts$/.test(entry.name)) out.push(full);
  }
  return out;
}

const files = sources(root);
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  jsx: ts.JsxEmit.Preserve,
  experimentalDecorators: true,
  allowJs: language === "js",
  checkJs: language === "js",
  noEmit: true,
  skipLibCheck: true,
  types: [],
});
const checker = program.getTypeChecker();
const own = new Set(files.map((f) => path.resolve(f)));

function calledName(call) {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isElementAccessExpression(callee)) return null;
  return null;
}

function declarationOf(call, name) {
  let symbol = checker.getSymbolAtLocation(name);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  if (!symbol || !symbol.declarations || symbol.declarations.length === 0) return null;
  // an overloaded function's implementation (the declaration with a body), else the first
  const declarations = symbol.declarations;
  return declarations.find((d) => d.body) || declarations[0];
}

function place(declaration) {
  const file = declaration.getSourceFile();
  const at = declaration.name || declaration;
  const line = file.getLineAndCharacterOfPosition(at.getStart(file)).line + 1;
  return { file: path.relative(root, file.fileName), line, kind: ts.SyntaxKind[declaration.kind] };
}

for (const file of program.getSourceFiles()) {
  if (!own.has(path.resolve(file.fileName))) continue;
  const relative = path.relative(root, file.fileName);
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const name = calledName(node);
      if (name && ts.isIdentifier(name)) {
        const line = file.getLineAndCharacterOfPosition(name.getStart(file)).line + 1;
        const declaration = declarationOf(node, name);
        let callee = "unknown";
        if (declaration) {
          const where = path.resolve(declaration.getSourceFile().fileName);
          // a declaration file of the project's own describes its JavaScript, whose code the index names instead
          const typings = where.startsWith(path.resolve(root) + path.sep) && !where.includes(`${path.sep}node_modules${path.sep}`);
          callee = own.has(where) ? place(declaration) : typings ? "unknown" : "outside";
        }
        // the receiver as written (`this.repo` in `this.repo.find()`): the index keeps one row per receiver and name
        const receiver = ts.isPropertyAccessExpression(node.expression) ? node.expression.expression.getText(file) : null;
        const site = { path: relative, line, name: name.text, receiver, new: ts.isNewExpression(node), callee };
        process.stdout.write(JSON.stringify(site) + "\n");
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
