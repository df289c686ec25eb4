// Rebuilds assets/vendor/ from the exact versions in package.json (run
// `make playground`): the published production builds of React and
// ReactDOM, GraphiQL's browser bundle and stylesheet minified with esbuild,
// and LICENSES.txt with the licence of every package those files contain.
// Nothing here is fetched at run time: docsapi embeds assets/ in its binary.
import { readFileSync, writeFileSync, mkdirSync, rmSync, existsSync, readdirSync, copyFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const nm = join(here, 'node_modules');
const out = join(here, 'assets', 'vendor');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const pkg = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

// React 18 publishes minified UMD builds: copied as they are.
copyFileSync(join(nm, 'react/umd/react.production.min.js'), join(out, 'react.production.min.js'));
copyFileSync(join(nm, 'react-dom/umd/react-dom.production.min.js'), join(out, 'react-dom.production.min.js'));

// GraphiQL's "min" browser bundle is not minified (and points at a source
// map it does not ship with here): minify it, keeping licence comments.
const gqlSrc = readFileSync(join(nm, 'graphiql/graphiql.min.js'), 'utf8');
const js = transformSync(gqlSrc, { minify: true, legalComments: 'none', target: 'es2020' });
writeFileSync(join(out, 'graphiql.min.js'), js.code);
const css = transformSync(readFileSync(join(nm, 'graphiql/graphiql.min.css'), 'utf8'), { loader: 'css', minify: true, legalComments: 'none' });
if (/url\(\s*["']?(https?:)?\/\//.test(css.code)) {
  throw new Error('graphiql.min.css references another host; the playground must not');
}
writeFileSync(join(out, 'graphiql.min.css'), css.code);

// The packages bundled into graphiql.min.js are named by its webpack
// module paths (node_modules/<name>/...); each one's licence is looked up
// in the installed tree.
const bundled = new Set();
for (const m of gqlSrc.matchAll(/node_modules\/((?:@[^/"]+\/)?[^/"]+)\//g)) bundled.add(m[1]);
for (const name of ['react', 'react-dom', 'graphiql']) bundled.add(name);

function findPackage(name) {
  // The top level first, then packages nested under another package.
  const direct = join(nm, name);
  if (existsSync(join(direct, 'package.json'))) return direct;
  const stack = [nm];
  while (stack.length) {
    const dir = stack.pop();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const sub = join(dir, entry.name);
      const nested = join(sub, 'node_modules', name);
      if (existsSync(join(nested, 'package.json'))) return nested;
      if (entry.name.startsWith('@')) stack.push(sub);
      else if (existsSync(join(sub, 'node_modules'))) stack.push(join(sub, 'node_modules'));
    }
  }
  return null;
}

const licenceFile = (dir) => readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
let text = 'Third-party software in docsapi\'s GraphQL playground (assets/vendor/),\n' +
  'built by playground/build.mjs from the exact versions in playground/package.json.\n';
const missing = [];
for (const name of [...bundled].sort()) {
  const dir = findPackage(name);
  if (!dir) { missing.push(name); continue; }
  const p = pkg(dir);
  const file = licenceFile(dir);
  text += `\n${'='.repeat(78)}\n${p.name}@${p.version} — ${p.license || 'see licence'}${p.homepage ? ' — ' + p.homepage : ''}\n${'='.repeat(78)}\n`;
  text += file ? readFileSync(join(dir, file), 'utf8').trim() + '\n' : `(no licence file in the package; package.json declares ${p.license})\n`;
}
if (missing.length) throw new Error('licence not found for ' + missing.join(', '));
writeFileSync(join(out, 'LICENSES.txt'), text);
console.log(`assets/vendor: ${readdirSync(out).join(', ')} (${bundled.size} packages' licences)`);
