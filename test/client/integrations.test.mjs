// Integrations through the official client: publish, install, development
// mode with a local receiver that verifies the delivery signature, events.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { startServer } from './harness.mjs';

const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const srv = await startServer();
after(() => srv.stop());

/** A development tunnel: collects deliveries whose signature verifies. */
async function startReceiver() {
  const deliveries = [];
  const waiters = [];
  let secret = '';
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const ts = req.headers['x-docsapi-timestamp'];
    const want = 'v1=' + createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex');
    const got = String(req.headers['x-docsapi-signature'] ?? '');
    const ok = got.length === want.length && timingSafeEqual(Buffer.from(got), Buffer.from(want));
    if (!ok || Math.abs(Date.now() / 1000 - Number(ts)) > 300) {
      res.writeHead(401).end();
      return;
    }
    deliveries.push({ headers: req.headers, payload: JSON.parse(body.toString()) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    waiters.splice(0).forEach((w) => w());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}/events`,
    deliveries,
    setSecret: (s) => (secret = s),
    /** Resolves once n deliveries arrived (fails after 10 s). */
    async waitFor(n) {
      const until = Date.now() + 10000;
      while (deliveries.length < n) {
        if (Date.now() > until) throw new Error(`only ${deliveries.length} of ${n} deliveries arrived`);
        await Promise.race([new Promise((r) => waiters.push(r)), new Promise((r) => setTimeout(r, 500))]);
      }
    },
    close: () => server.close(),
  };
}

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

test('publish, install, develop through a tunnel, read the events', async () => {
  const { client, org } = srv;
  const name = 'client-chat';

  const published = await client.integrations.publishIntegration(name, {
    title: 'Client chat',
    description: 'Published by the official client',
    script: 'export default {}',
    scopes: ['space:content:read'],
    organization: org,
    icon: PNG_1x1,
    previewImages: [PNG_1x1],
    categories: ['content'],
    secrets: { TOKEN: 'never-returned' },
    configurations: { account: { properties: { token: { type: 'string' } }, required: ['token'] } },
  });
  assert.equal(published.status, 200);
  assert.equal(published.data.object, 'integration');
  assert.equal(published.data.version, 1);
  assert.equal(published.data.owner.id, org);
  assert.equal(published.data.secrets, undefined);
  const icon = await fetch(published.data.urls.icon);
  assert.equal(icon.headers.get('content-type'), 'image/png');

  // Publishing again replaces every field and increments the version.
  const again = await client.integrations.publishIntegration(name, {
    title: 'Client chat',
    description: 'v2',
    script: 'export default {}',
    scopes: ['space:content:read'],
    organization: org,
    categories: ['analytics'],
    configurations: { account: { properties: { token: { type: 'string' } }, required: ['token'] } },
  });
  assert.equal(again.data.version, 2);

  const byCategory = await client.integrations.listIntegrations({ category: 'content' });
  assert.deepEqual(byCategory.data.items.map((i) => i.name), []);
  const bySearch = await client.integrations.listIntegrations({ search: 'CLIENT', category: 'analytics' });
  assert.deepEqual(bySearch.data.items.map((i) => i.name), [name]);

  const installed = await client.integrations.installIntegration(name, { organization: org });
  assert.equal(installed.status, 201);
  const installationId = installed.data.id;
  assert.equal(installed.data.target.organization, org);

  // Development mode with a local receiver.
  const rx = await startReceiver();
  const dev = await client.integrations.setIntegrationDevelopmentMode(name, { tunnelUrl: rx.url, all: false });
  assert.equal(dev.status, 204);
  const { integrationDevelopment } = await graphql(
    'query($n: String!) { integrationDevelopment(integrationName: $n) { enabled signingSecret } }',
    { n: name },
  );
  assert.equal(integrationDevelopment.enabled, true);
  rx.setSecret(integrationDevelopment.signingSecret);

  const updated = await client.integrations.updateIntegrationInstallation(name, installationId, {
    configuration: { token: 'abc' },
    externalIds: ['team-1'],
  });
  assert.equal(updated.data.status, 'active');
  await rx.waitFor(1);
  const delivered = rx.deliveries[0];
  assert.equal(delivered.payload.type, 'installation_setup');
  assert.equal(delivered.payload.installationId, installationId);
  assert.equal(delivered.payload.previous.status, 'pending');
  assert.equal(delivered.headers['x-docsapi-event-type'], 'installation_setup');

  // The events, newest first, with the delivery in the trace.
  let events;
  const until = Date.now() + 10000;
  do {
    events = (await client.integrations.listIntegrationEvents(name)).data;
    if (events.items[0].status === 'success') break;
    await new Promise((r) => setTimeout(r, 100));
  } while (Date.now() < until);
  assert.equal(events.count, 2);
  assert.deepEqual(events.items.map((e) => e.payload.type), ['installation_setup', 'installation_setup']);
  assert.equal(events.items[0].status, 'success');
  const detail = await client.integrations.getIntegrationEvent(name, events.items[0].id);
  assert.equal(detail.data.event.id, delivered.payload.eventId);
  assert.ok(detail.data.trace.logs.some((l) => l.message.includes('HTTP 200')));

  const filtered = await client.integrations.listIntegrationInstallations(name, { externalId: 'team-1' });
  assert.equal(filtered.data.count, 1);
  const orgInstallations = await client.orgs.listOrganizationInstallations(org);
  assert.equal(orgInstallations.data.items[0].integration.name, name);

  // A render request that is not LZ-string compressed JSON is refused.
  await assert.rejects(
    client.integrations.renderIntegrationUiWithGet(name, { request: '!!!' }),
    (err) => err.code === 400,
  );

  // An installation token reads the installation's organization.
  const token = await client.integrations.createIntegrationInstallationToken(name, installationId);
  const asInstallation = srv.clientFor(token.data.token);
  const orgRead = await asInstallation.orgs.getOrganizationById(org);
  assert.equal(orgRead.data.id, org);

  const off = await client.integrations.disableIntegrationDevelopmentMode(name);
  assert.equal(off.status, 205);
  const uninstalled = await client.integrations.uninstallIntegration(name, installationId);
  assert.equal(uninstalled.status, 205);
  await assert.rejects(asInstallation.orgs.getOrganizationById(org), (err) => err.code === 401);
  const unpublished = await client.integrations.unpublishIntegration(name);
  assert.equal(unpublished.status, 205);
  rx.close();
});

test('install on a space, list space installations extended, scopes of an installation token', async () => {
  const { client, org } = srv;
  const name = 'client-spaces';
  await client.integrations.publishIntegration(name, {
    title: 'Client spaces',
    description: 'Installed on a space',
    script: 'export default {}',
    scopes: ['space:metadata:read'],
    organization: org,
    target: 'space',
    configurations: { space: { properties: { path: { type: 'string' } }, required: ['path'] } },
  });
  const installed = await client.integrations.installIntegration(name, { organization: org });
  const installationId = installed.data.id;
  const space = (await client.orgs.createSpace(org, { title: 'Installed here' })).data;

  // The published interface has no method to install on a space: docsapi
  // serves it at .../installations/{id}/spaces (and through GraphQL).
  const res = await fetch(`${srv.endpoint}/v1/integrations/${name}/installations/${installationId}/spaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.token}` },
    body: JSON.stringify({ space: space.id }),
  });
  assert.equal(res.status, 201);
  const entry = await res.json();
  assert.equal(entry.space, space.id);
  assert.equal(entry.status, 'pending');
  const unknown = await fetch(`${srv.endpoint}/v1/integrations/${name}/installations/${installationId}/spaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.token}` },
    body: JSON.stringify({ space: 'no-such-space' }),
  });
  assert.equal(unknown.status, 404);

  const ids = await client.integrations.listIntegrationSpaceInstallations(name);
  assert.equal(ids.data.count, 1);
  assert.equal(ids.data.items[0].space, space.id);
  const extended = await client.integrations.listIntegrationSpaceInstallations(name, { extended: true });
  assert.equal(extended.data.count, 1);
  const expanded = extended.data.items[0].space;
  const direct = await client.spaces.getSpaceById(space.id);
  assert.deepEqual(expanded, direct.data);
  assert.equal(expanded.permissions.admin, true);

  // space_selection all: the installation covers every live space of the organization.
  const all = await client.integrations.getIntegrationInstallationById(name, installationId);
  const spaces = await client.orgs.listSpacesInOrganizationById(org);
  assert.equal(all.data.spaces, spaces.data.count);

  // An installation token reads spaces with space:metadata:read, changes none.
  const token = await client.integrations.createIntegrationInstallationToken(name, installationId);
  const asInstallation = srv.clientFor(token.data.token);
  const read = await asInstallation.spaces.getSpaceById(space.id);
  assert.equal(read.data.id, space.id);
  await assert.rejects(asInstallation.spaces.updateSpaceById(space.id, { title: 'Renamed' }), (err) => err.code === 403);

  // A space in the trash leaves the list until it is restored.
  await client.spaces.deleteSpaceById(space.id);
  const afterTrash = await client.integrations.listIntegrationSpaceInstallations(name);
  assert.equal(afterTrash.data.count, 0);
  await client.spaces.restoreSpace(space.id);
  const afterRestore = await client.integrations.listIntegrationSpaceInstallations(name);
  assert.equal(afterRestore.data.count, 1);

  await client.integrations.unpublishIntegration(name);
});

test('install on a site, list site installations extended, uninstalled with the site', async () => {
  const { client, org } = srv;
  const name = 'client-sites';
  await client.integrations.publishIntegration(name, {
    title: 'Client sites',
    description: 'Installed on a site',
    script: 'export default {}',
    scopes: ['site:views:read'],
    organization: org,
    target: 'site',
    configurations: { site: { properties: { theme: { type: 'string', enum: ['dark', 'light'] } }, required: ['theme'] } },
  });
  const installationId = (await client.integrations.installIntegration(name, { organization: org })).data.id;
  const site = (await client.orgs.createSite(org, { title: 'Installed site' })).data;
  await client.orgs.publishSite(org, site.id);

  // As for spaces, the published interface has no method to install on a
  // site: docsapi serves it at .../installations/{id}/sites.
  const install = (siteId) =>
    fetch(`${srv.endpoint}/v1/integrations/${name}/installations/${installationId}/sites`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.token}` },
      body: JSON.stringify({ site: siteId }),
    });
  const res = await install(site.id);
  assert.equal(res.status, 201);
  assert.ok(res.headers.get('location').endsWith(`/installations/${installationId}/sites/${site.id}`));
  const entry = await res.json();
  assert.equal(entry.site, site.id);
  assert.equal(entry.status, 'pending');
  assert.equal((await install('no-such-site')).status, 404);

  const ids = await client.integrations.listIntegrationSiteInstallations(name);
  assert.equal(ids.data.count, 1);
  assert.equal(ids.data.items[0].site, site.id);
  const extended = await client.integrations.listIntegrationSiteInstallations(name, { extended: true });
  assert.equal(extended.data.count, 1);
  const direct = await client.orgs.getSiteById(org, site.id);
  assert.deepEqual(extended.data.items[0].site, direct.data);
  assert.equal(extended.data.items[0].site.published, true);

  // Deleting the site uninstalls the integration from it, with an event.
  const deleted = await client.orgs.deleteSiteById(org, site.id);
  assert.equal(deleted.status, 205);
  const after = await client.integrations.listIntegrationSiteInstallations(name);
  assert.equal(after.data.count, 0);
  const events = (await client.integrations.listIntegrationEvents(name)).data;
  const removed = events.items.find((e) => e.payload.type === 'site_installation_deleted');
  assert.ok(removed, JSON.stringify(events.items.map((e) => e.payload.type)));
  assert.equal(removed.payload.siteId, site.id);
  assert.equal(removed.payload.installationId, installationId);

  await client.integrations.unpublishIntegration(name);
});

test('an installation without configuration answers configuration {} (REST and GraphQL)', async () => {
  const { client, org } = srv;
  const name = 'client-unconfigured';
  await client.integrations.publishIntegration(name, {
    title: 'Unconfigured',
    description: 'Has no configuration schema',
    script: 'export default {}',
    scopes: ['space:metadata:read'],
    organization: org,
  });
  const { data: installed } = await client.integrations.installIntegration(name, { organization: org });
  assert.deepEqual(installed.configuration, {});
  const { data: got } = await client.integrations.getIntegrationInstallationById(name, installed.id);
  assert.deepEqual(got.configuration, {});
  const { data: listed } = await client.integrations.listIntegrationInstallations(name);
  assert.deepEqual(listed.items.map((i) => i.configuration), [{}]);
  const data = await graphql(
    `query($n: String!, $i: ID!) { integrationInstallation(integrationName: $n, installationId: $i) { id configuration } }`,
    { n: name, i: installed.id },
  );
  assert.deepEqual(data.integrationInstallation, { id: installed.id, configuration: {} });
});
