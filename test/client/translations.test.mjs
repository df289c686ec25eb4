// Translations through the official client: a space translated by a local
// LibreTranslate-compatible server started here (it "translates" by
// upper-casing; a leading "tag:" becomes "[fr]"), read back from the target space; and a computed page
// rendering a processed OpenAPI spec.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { GitBookAPIError } from '@gitbook/api';
import { startServer } from './harness.mjs';

let srv;
let libre;
let requests = 0;

before(async () => {
  libre = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || '{}');
    res.setHeader('Content-Type', 'application/json');
    if (req.method !== 'POST' || req.url !== '/translate' || body.format !== 'text' || body.target !== 'fr') {
      res.statusCode = 400;
      return res.end(JSON.stringify({ error: 'bad request' }));
    }
    if (body.api_key !== 'client-key') {
      res.statusCode = 403;
      return res.end(JSON.stringify({ error: 'Invalid API key' }));
    }
    requests++;
    const q = Array.isArray(body.q) ? body.q : [body.q];
    // A leading "tag:" becomes "[fr]": a translation that brings markup characters.
    const out = q.map((s) => (s.startsWith('tag:') ? `[${body.target}]${s.slice(4).toUpperCase()}` : s.toUpperCase()));
    res.end(JSON.stringify({ translatedText: Array.isArray(body.q) ? out : out[0] }));
  });
  libre.listen(0, '127.0.0.1');
  await once(libre, 'listening');
  const url = `http://127.0.0.1:${libre.address().port}`;
  srv = await startServer(['--translate-url', url, '--translate-key', 'client-key']);
});
after(async () => {
  await srv?.stop();
  libre?.close();
});

async function graphql(query, variables) {
  const res = await fetch(`${srv.endpoint}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const out = await res.json();
  assert.equal(out.errors, undefined, JSON.stringify(out.errors));
  return out.data;
}

async function createPage(space, input) {
  const data = await graphql(
    'mutation($t: ContentTarget!, $in: CreatePageInput!) { createPage(target: $t, input: $in) { page { id } } }',
    { t: { space }, in: input },
  );
  return data.createPage.page.id;
}

async function refused(code, fn) {
  await assert.rejects(fn, (err) => {
    assert.ok(err instanceof GitBookAPIError, `not a GitBookAPIError: ${err}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

// Polls until the background runner has finished the translation's run.
async function settled(client, org, id) {
  const until = Date.now() + 15000;
  for (;;) {
    const { data } = await client.orgs.getTranslation(org, id);
    if (data.status === 'completed') return data; // a failed run is completed with error
    if (Date.now() > until) throw new Error(`translation ${id} still ${data.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('translate a space through the LibreTranslate provider', async () => {
  const { client, org } = srv;
  const { data: space } = await client.orgs.createSpace(org, { title: 'Guide' });
  const intro = await createPage(space.id, {
    title: 'Welcome',
    markdown: 'Run `make build` then open [the docs](https://example.com/docs).\n\n```sh\nmake test\n```\n',
  });
  await createPage(space.id, { title: 'Details', parent: intro, markdown: '- one *thing*\n- another' });

  await refused(400, () => client.orgs.createTranslation(org, { language: 'xx', source: { space: space.id, language: 'en' } }));
  await refused(400, () => client.orgs.createTranslation(org, { language: 'fr' }));
  const created = await client.orgs.createTranslation(org, { language: 'fr', source: { space: space.id, language: 'en' } });
  assert.equal(created.status, 201);
  assert.equal(created.data.object, 'translation');
  assert.equal(created.data.status, 'pending');

  const done = await settled(client, org, created.data.id);
  assert.equal(done.status, 'completed', JSON.stringify(done.error));
  assert.ok(requests >= 1);
  assert.equal(done.stats.runs, 1);
  assert.equal(done.stats.latestPages, 2);
  assert.equal(done.stats.totalPages, 2);
  // Welcome, Details, "Run", "then open", "the docs", "one", "thing", "another"
  assert.equal(done.stats.latestWords, 10);
  const { space: target, revision } = done.result;

  const { data: rev } = await client.spaces.getCurrentRevision(target);
  assert.equal(rev.id, revision);
  assert.deepEqual(rev.pages.map((p) => [p.title, p.path]), [['WELCOME', 'welcome']]);
  assert.deepEqual(rev.pages[0].pages.map((p) => [p.title, p.path]), [['DETAILS', 'welcome/details']]);
  const { data: page } = await client.spaces.getPageById(target, rev.pages[0].id, { format: 'markdown' });
  assert.equal(page.markdown, 'RUN `make build` THEN OPEN [THE DOCS](https://example.com/docs).\n\n```sh\nmake test\n```\n');
  const { data: details } = await client.spaces.getPageById(target, rev.pages[0].pages[0].id, { format: 'markdown' });
  assert.equal(details.markdown, '- ONE *THING*\n- ANOTHER');

  const instructions = { object: 'document', data: { schemaVersion: 1 }, nodes: [] };
  const { data: updated } = await client.orgs.updateTranslation(org, created.data.id, { instructions });
  assert.deepEqual(updated.instructions, instructions);
  await refused(400, () => client.orgs.updateTranslation(org, created.data.id, { instructions: { object: 'nope' } }));
  const { data: list } = await client.orgs.listTranslations(org);
  assert.equal(list.count, 1);
  assert.equal(list.items[0].id, created.data.id);
  await refused(404, () => client.orgs.getTranslation(org, 'missing'));

  const del = await client.orgs.deleteTranslation(org, created.data.id);
  assert.equal(del.status, 205);
  const again = await client.orgs.deleteTranslation(org, created.data.id);
  assert.equal(again.status, 204);
});

test('a computed page renders a processed OpenAPI spec', async () => {
  const { client, org } = srv;
  const spec = JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Pets', version: '1.0.0' },
    paths: { '/pets': { get: { summary: 'List pets', responses: { 200: { description: 'ok' } } } } },
  });
  await client.orgs.createOpenApiSpec(org, { slug: 'pets', source: { text: spec } });
  const until = Date.now() + 15000;
  for (;;) {
    const { data } = await client.orgs.getOpenApiSpecBySlug(org, 'pets');
    if (data.processingState === 'complete') break;
    if (Date.now() > until) throw new Error('spec not processed');
    await new Promise((r) => setTimeout(r, 25));
  }
  const { data: space } = await client.orgs.createSpace(org, { title: 'API' });
  const id = await createPage(space.id, {
    title: 'Reference',
    type: 'COMPUTED',
    computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } }, props: { models: false } },
  });
  const { data: page } = await client.spaces.getPageById(space.id, id, { format: 'markdown' });
  assert.equal(page.type, 'computed');
  assert.equal(page.computed.dependencies.spec.ref.spec, 'pets');
  assert.match(page.markdown, /^## GET \/pets$/m);
  assert.match(page.markdown, /\*\*List pets\*\*/);
  assert.match(page.markdown, /\| 200 \| ok \|/);
  const { data: raw } = await client.spaces.getPageById(space.id, id, { computed: false });
  assert.equal(raw.markdown, undefined);
});

test('translated titles and descriptions are plain text, not Markdown-escaped', async () => {
  const { client, org } = srv;
  const { data: space } = await client.orgs.createSpace(org, { title: 'Tagged' });
  await createPage(space.id, { title: 'tag: Home', description: 'tag: the start', markdown: '## tag: Welcome\n\ntag: Hello.\n' });
  const { data: created } = await client.orgs.createTranslation(org, { language: 'fr', source: { space: space.id, language: 'en' } });
  const done = await settled(client, org, created.id);
  assert.equal(done.status, 'completed', JSON.stringify(done.error));
  const { data: rev } = await client.spaces.getCurrentRevision(done.result.space);
  assert.equal(rev.pages[0].title, '[fr] HOME');
  assert.equal(rev.pages[0].description, '[fr] THE START');
  const { data: page } = await client.spaces.getPageById(done.result.space, rev.pages[0].id, { format: 'markdown' });
  assert.equal(page.title, '[fr] HOME');
  assert.equal(page.markdown, '## \\[fr\\] WELCOME\n\n\\[fr\\] HELLO.\n');
  const { data: found } = await client.spaces.searchSpaceContent(done.result.space, { query: 'welcome' });
  assert.equal(found.items[0].title, '[fr] HOME');
  assert.equal(found.items[0].sections[0].title, '[fr] WELCOME');
  await client.orgs.deleteTranslation(org, created.id);
});
