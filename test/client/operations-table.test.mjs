// docs/operations.md is the table of every operation of @gitbook/api@0.130.0
// by family with what docsapi does for it, made from the package's spec
// and docsapi's own /v1/openapi.json. This test fails when the page is not
// what they make now; DOCSAPI_WRITE_DOCS=1 npm test writes it anew.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from './harness.mjs';
import { spec, pkgVersion } from './contract.mjs';

const PAGE = join(import.meta.dirname, '..', '..', 'docs', 'operations.md');

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

function table(served) {
  const byTag = new Map();
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op?.operationId) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ id: op.operationId, method: method.toUpperCase(), path });
    }
  }
  let built = 0, hosted = 0, missing = 0;
  const sections = [...byTag.keys()].sort().map((tag) => {
    const rows = byTag.get(tag).sort((a, b) => a.id.localeCompare(b.id)).map((o) => {
      const mine = served.get(o.id);
      let what = 'not built yet: 404 "no route"';
      if (mine?.responses?.['501']) {
        what = '501: a service of GitBook\'s hosted platform';
        hosted++;
      } else if (mine) {
        what = 'built';
        built++;
      } else {
        missing++;
      }
      return `| \`${o.id}\` | \`${o.method} ${o.path}\` | ${what} |`;
    });
    return `## ${tag}\n\n| operation | route (under /v1) | docsapi |\n|---|---|---|\n${rows.join('\n')}\n`;
  });
  const total = built + hosted + missing;
  return `# The operations of @gitbook/api@${pkgVersion}

**Task: know whether docsapi answers the operation your client calls.** Every operation of the official
client's package, by family: built (REST and GraphQL, answering the package's schema's shapes), answered
501 (services only GitBook's hosted platform provides), or not built yet. This page is made by
\`test/client/operations-table.test.mjs\` from the package's spec and docsapi's \`/v1/openapi.json\`, and
the test fails when it is out of date (\`DOCSAPI_WRITE_DOCS=1 npm test\` in \`test/client\` writes it anew).

Of ${total} operations: ${built} built, ${hosted} answered 501, ${missing} not built yet.

${sections.join('\n')}`;
}

test('docs/operations.md is the table of today', async () => {
  const doc = await (await fetch(`${s.endpoint}/v1/openapi.json`)).json();
  const served = new Map();
  for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) if (op?.operationId) served.set(op.operationId, op);
  const want = table(served);
  if (process.env.DOCSAPI_WRITE_DOCS) writeFileSync(PAGE, want);
  let have = '';
  try {
    have = readFileSync(PAGE, 'utf8');
  } catch {}
  assert.ok(have === want, 'docs/operations.md is out of date: run DOCSAPI_WRITE_DOCS=1 npm test in test/client');
});
