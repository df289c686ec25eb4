// The README's quick start, run as a newcomer would: its shell blocks in
// order (curl and jq against a real server), then its official-client
// script. A change to the README that breaks a step, or a change to the
// server that breaks the README, fails here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './harness.mjs';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

// blocks returns the fenced blocks of one language in the README section
// that starts at heading and ends at the next heading of the same level.
function blocks(heading, lang) {
  const start = README.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README has no "${heading}"`);
  const level = heading.split(' ')[0];
  const rest = README.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end >= 0 ? rest.slice(0, end) : rest;
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

test('the quick start runs as written', () => {
  const shell = blocks('## Quick start', 'sh');
  assert.ok(shell.length >= 3, `the quick start has ${shell.length} shell blocks`);
  // The reader exports the token the first start printed and talks to
  // 127.0.0.1:8080; here the server is the test's.
  const script = shell
    .join('\n')
    .replace(/^export TOKEN=.*$/m, '')
    .replace(/^B=http:\/\/127\.0\.0\.1:8080$/m, `B=${s.endpoint}`);
  assert.ok(script.includes(`B=${s.endpoint}`), 'the quick start sets B to the server');
  // In a folder of its own: the quick start writes a file to upload.
  const out = execFileSync('bash', ['-euo', 'pipefail', '-c', script], {
    encoding: 'utf8',
    cwd: mkdtempSync(join(tmpdir(), 'docsapi-readme-')),
    env: { ...process.env, TOKEN: s.token },
  });
  assert.match(out, /"email":"owner@example.com"/);
  assert.match(out, /"Welcome",\s*"Install"/);
  assert.match(out, /Hello \*\*readers\*\*\./);
  assert.match(out, /"importedResources":1/); // the uploaded notes.md
});

test('the official-client script runs as written', async () => {
  const [script] = blocks('### The official client', 'js');
  assert.ok(script, 'the README has an official-client script');
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Handbook' });
  // Beside this test, so that '@gitbook/api' resolves from node_modules.
  const file = join(import.meta.dirname, `readme-client-${process.pid}.mjs`);
  writeFileSync(file, script.replace("'http://127.0.0.1:8080'", JSON.stringify(s.endpoint)));
  try {
    const out = execFileSync('node', [file], { encoding: 'utf8', env: { ...process.env, TOKEN: s.token, SPACE: space.id } });
    assert.match(out, /^owner@example.com Client Test Org \w+ http/m);
    assert.match(out, /\[\]/); // the new space has no pages yet
  } finally {
    rmSync(file, { force: true });
  }
});
