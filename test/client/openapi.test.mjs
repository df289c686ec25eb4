// OpenAPI specs through the official client: create from text and from a
// URL, wait for the server's background processing, read versions back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startServer } from './harness.mjs';

const petsJSON = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: { '/pets': { get: { summary: 'List pets', responses: { 200: { description: 'ok' } } } } },
});

const eventsYAML = `openapi: 3.1.0
info:
  title: Events
  version: "2025-06"
paths:
  /events:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: [array, "null"], items: {type: string}}
`;

let srv;
let specHost;
before(async () => {
  srv = await startServer();
  // The URL source: a local server (the harness runs docsapi with --allow-private-fetch).
  specHost = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'application/yaml');
    res.end(eventsYAML);
  });
  specHost.listen(0, '127.0.0.1');
  await once(specHost, 'listening');
});
after(async () => {
  specHost?.close();
  await srv?.stop();
});

// Polls until the background processor has finished with the spec.
async function processed(client, org, slug) {
  const until = Date.now() + 15000;
  for (;;) {
    const { data } = await client.orgs.getOpenApiSpecBySlug(org, slug);
    if (data.processingState === 'complete') return data;
    if (Date.now() > until) throw new Error(`spec ${slug} still ${data.processingState}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('create from text, process in the background, read versions back', async () => {
  const { client, org } = srv;
  const created = await client.orgs.createOpenApiSpec(org, { slug: 'pets', source: { text: petsJSON } });
  assert.equal(created.status, 201);
  assert.equal(created.data.object, 'openapi-spec');
  assert.equal(created.data.slug, 'pets');
  assert.ok(['pending', 'progress', 'complete'].includes(created.data.processingState));

  const spec = await processed(client, org, 'pets');
  assert.ok(spec.lastVersion);
  assert.ok(spec.lastProcessedAt);
  assert.equal(spec.lastProcessErrorCode, undefined);

  const latest = await client.orgs.getLatestOpenApiSpecVersion(org, 'pets');
  assert.equal(latest.data.object, 'openapi-spec-version');
  assert.equal(latest.data.id, spec.lastVersion);
  assert.equal(latest.data.info.title, 'Pets');

  const byId = await client.orgs.getOpenApiSpecVersionById(org, 'pets', spec.lastVersion);
  assert.equal(byId.data.url, latest.data.url);

  const list = await client.orgs.listOpenApiSpecVersions(org, 'pets');
  assert.equal(list.data.count, 1);
  assert.equal(list.data.items[0].id, spec.lastVersion);

  const content = await client.orgs.getLatestOpenApiSpecVersionContent(org, 'pets');
  assert.deepEqual(content.data.filesystem['openapi.json'], JSON.parse(petsJSON));
  const contentById = await client.orgs.getOpenApiSpecVersionContentById(org, 'pets', spec.lastVersion);
  assert.equal(contentById.data.url, content.data.url);

  // The version's url serves the document as received.
  const raw = await fetch(latest.data.url, { headers: { Authorization: `Bearer ${srv.token}` } });
  assert.equal(await raw.text(), petsJSON);

  const specs = await client.orgs.listOpenApiSpecs(org);
  assert.ok(specs.data.items.some((s) => s.slug === 'pets'));
});

test('PUT from a URL creates (201), updates (200); a parse error keeps the version', async () => {
  const { client, org } = srv;
  const url = `http://127.0.0.1:${specHost.address().port}/events.yaml`;
  const created = await client.orgs.createOrUpdateOpenApiSpecBySlug(org, 'events', { source: { url } });
  assert.equal(created.status, 201);
  assert.equal(created.data.sourceURL, url);
  const first = await processed(client, org, 'events');
  assert.ok(first.lastVersion);
  const content = await client.orgs.getLatestOpenApiSpecVersionContent(org, 'events');
  assert.equal(content.data.filesystem['openapi.yaml'].info.title, 'Events');

  const updated = await client.orgs.createOrUpdateOpenApiSpecBySlug(org, 'events', { source: { text: 'openapi: [' } });
  assert.equal(updated.status, 200);
  const failed = await processed(client, org, 'events');
  assert.equal(failed.lastProcessErrorCode, 'PARSE_ERROR');
  assert.equal(failed.lastVersion, first.lastVersion);

  const patched = await client.orgs.updateOpenApiSpecBySlug(org, 'events', { visibility: 'public' });
  assert.equal(patched.data.visibility, 'public');

  assert.equal((await client.orgs.deleteOpenApiSpecBySlug(org, 'events')).status, 205);
  assert.equal((await client.orgs.deleteOpenApiSpecBySlug(org, 'events')).status, 204);
});

test('refusals: taken slug, bad slug, role below create, unknown spec', async () => {
  const { client, org } = srv;
  await client.orgs.createOpenApiSpec(org, { slug: 'taken', source: { text: petsJSON } });
  await assert.rejects(client.orgs.createOpenApiSpec(org, { slug: 'taken', source: { text: petsJSON } }), { code: 409 });
  await assert.rejects(client.orgs.createOpenApiSpec(org, { slug: 'Bad Slug', source: { text: petsJSON } }), { code: 400 });
  const reader = srv.newUser('reader@example.com', 'read');
  await assert.rejects(reader.client.orgs.createOpenApiSpec(org, { slug: 'mine', source: { text: petsJSON } }), { code: 403 });
  assert.equal((await reader.client.orgs.getOpenApiSpecBySlug(org, 'taken')).data.permissions.edit, false);
  await assert.rejects(client.orgs.getOpenApiSpecBySlug(org, 'nope'), { code: 404 });
});
