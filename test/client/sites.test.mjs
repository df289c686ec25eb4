// The official client against a real `docsapi serve`: docs sites — a site
// with sections and a section group, reordered through the structure sort
// and the deprecated moves, published, read through a share link by
// someone outside the organization, and read as a visitor whose claims
// decide what the published structure shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { GitBookAPIError } from '@gitbook/api';
import { startServer } from './harness.mjs';
import { checkComponent } from './contract.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => {
  await s?.stop();
});

async function refused(code, fn) {
  await assert.rejects(fn, (err) => {
    assert.ok(err instanceof GitBookAPIError, `not a GitBookAPIError: ${err}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

/** The published structure as "Section(siteSpace*,...)" by titles; * marks defaults. */
function outline(structure) {
  const spaces = (list) => list.map((ss) => ss.title + (ss.default ? '*' : '')).join(',');
  const section = (it) =>
    it.object === 'site-section-group'
      ? `{${it.title}: ${it.sections.map(section).join(' ')}}`
      : `${it.title}${it.default ? '*' : ''}(${spaces(it.siteSpaces)})`;
  return structure.type === 'siteSpaces' ? spaces(structure.structure) : structure.structure.map(section).join(' ');
}

/** An HS256 JWT of claims signed with secret. */
function sign(claims, secret) {
  const enc = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const body = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

async function graphql(token, query, variables) {
  const res = await fetch(`${s.endpoint}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const out = await res.json();
  assert.equal(out.errors, undefined, JSON.stringify(out.errors));
  return out.data;
}

test('build, reorder, publish and share a site', async () => {
  const { orgs } = s.client;
  const space = async (title) => (await orgs.createSpace(s.org, { title })).data.id;
  const [guide, api, sdk, beta] = [await space('Guide'), await space('API'), await space('SDK'), await space('Beta Guide')];

  const { data: site } = await orgs.createSite(s.org, { title: 'Developer Docs', visibility: 'share-link', spaces: [guide, beta] });
  assert.equal(site.object, 'site');
  assert.equal(site.type, 'basic');
  assert.equal(site.published, false);
  assert.equal(site.siteSpaces, 2);
  assert.ok(site.features.length > 0);

  const { data: apiSection } = await orgs.addSectionToSite(s.org, site.id, { spaceId: api, title: 'API', icon: 'code' });
  assert.equal(apiSection.object, 'site-section');
  const { data: sdkSection } = await orgs.addSectionToSite(s.org, site.id, { spaceId: sdk, title: 'SDKs' });
  const { data: group } = await orgs.addSectionGroupToSite(s.org, site.id, { title: 'Reference', sections: [apiSection.id, sdkSection.id] });
  assert.deepEqual(group.sections.map((x) => x.id), [apiSection.id, sdkSection.id]);

  let { data: structure } = await orgs.getSiteStructure(s.org, site.id);
  assert.equal(outline(structure), 'Guide*(Guide*,Beta Guide) {Reference: API(API*) SDKs(SDK*)}');

  // The structure sort, and the deprecated moves built on it.
  await orgs.sortSiteStructure(s.org, site.id, {
    item: { type: 'site-section', id: sdkSection.id },
    position: { before: { type: 'site-section', id: apiSection.id } },
  });
  await orgs.moveSiteSectionGroup(s.org, site.id, group.id, { position: { before: { type: 'site-section', id: structure.structure[0].id } } });
  ({ data: structure } = await orgs.getSiteStructure(s.org, site.id));
  assert.equal(outline(structure), '{Reference: SDKs(SDK*) API(API*)} Guide*(Guide*,Beta Guide)');
  const guideSection = structure.structure[1];
  const betaSiteSpace = guideSection.siteSpaces[1];
  await orgs.moveSiteSpace(s.org, site.id, betaSiteSpace.id, { position: { before: { type: 'site-space', siteSpace: guideSection.siteSpaces[0].id } } });
  await orgs.moveSiteSection(s.org, site.id, apiSection.id, { position: { before: { type: 'site-section', siteSection: sdkSection.id } } });
  const { data: sections } = await orgs.listSiteSections(s.org, site.id);
  assert.deepEqual(sections.items.map((x) => x.title), ['API', 'SDKs', 'Guide']);
  const { data: siteSpaces } = await orgs.listSiteSpaces(s.org, site.id, { default: true });
  assert.equal(siteSpaces.count, 3);

  // Publishing and a share link.
  const { data: published } = await orgs.publishSite(s.org, site.id);
  assert.equal(published.published, true);
  assert.ok(published.urls.published.startsWith(s.endpoint));
  const { data: link } = await orgs.createSiteShareLink(s.org, site.id, { name: 'Partners' });
  const key = new URL(link.urls.published).searchParams.get('share');
  // urls.location (a docsapi addition) is where the link is managed.
  assert.equal(link.urls.location, `${s.endpoint}/v1/orgs/${s.org}/sites/${site.id}/share-links/${link.id}`);
  assert.ok(key.length >= 22);

  const outsider = s.newOrg('Outside', 'outside@example.org').client;
  await refused(404, () => outsider.orgs.getPublishedContentSite(s.org, site.id));
  const { data: shared } = await outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key });
  assert.equal(shared.object, 'published-content-site');
  assert.equal(outline(shared.structure), '{Reference: API(API*) SDKs(SDK*)} Guide*(Beta Guide,Guide*)');
  const sharedSpace = shared.structure.structure[1].siteSpaces[0];
  assert.ok(sharedSpace.urls.published.endsWith(`?share=${key}`));
  const { data: readSpace } = await outsider.spaces.getSpaceById(guide, { shareKey: key });
  assert.equal(readSpace.id, guide);

  await orgs.updateSiteShareLinkById(s.org, site.id, link.id, { active: false });
  await refused(404, () => outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key }));
  await orgs.deleteSiteShareLinkById(s.org, site.id, link.id);
  await refused(404, () => outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key }));
});

test('a visitor with claims reads an adaptive site', async () => {
  const { orgs } = s.client;
  const space = async (title) => (await orgs.createSpace(s.org, { title })).data.id;
  const [docs, pro] = [await space('Docs'), await space('Pro Docs')];
  const { data: site } = await orgs.createSite(s.org, { title: 'Customers', type: 'ultimate', spaces: [docs, pro] });
  await orgs.updateSiteById(s.org, site.id, { visibility: 'visitor-auth', adaptiveContent: { enabled: true } });
  await orgs.updateSiteAdaptiveSchema(s.org, site.id, {
    jsonSchema: {
      type: 'object',
      properties: {
        plans: { type: 'array', description: 'Plans', items: { type: 'string', enum: ['free', 'pro'], description: 'A plan' } },
      },
      additionalProperties: false,
    },
  });
  const { data: templates } = await orgs.listSiteAdaptiveTemplateConditions(s.org, site.id);
  const condition = templates.items[0].condition;
  assert.equal(condition, "visitor.claims.plans.includes('free')");
  const { data: list } = await orgs.listSiteSpaces(s.org, site.id);
  await orgs.updateSiteSpaceById(s.org, site.id, list.items[1].id, { condition: "visitor.claims.plans.includes('pro')" });
  await refused(400, () => orgs.updateSiteSpaceById(s.org, site.id, list.items[1].id, { condition: 'visitor.claims.plans.includes(' }));
  await orgs.publishSite(s.org, site.id);

  const { siteVisitorAuth } = await graphql(s.token, 'query($o: ID!, $s: ID!) { siteVisitorAuth(organizationId: $o, siteId: $s) { secret } }', {
    o: s.org,
    s: site.id,
  });
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const as = (claims) => ({ headers: { 'X-Visitor-Token': sign({ exp, ...claims }, siteVisitorAuth.secret) } });

  await refused(403, () => orgs.getPublishedContentSite(s.org, site.id));
  const free = (await orgs.getPublishedContentSite(s.org, site.id, {}, as({ plans: ['free'] }))).data;
  assert.equal(outline(free.structure), 'Docs*');
  const paying = (await orgs.getPublishedContentSite(s.org, site.id, {}, as({ plans: ['free', 'pro'] }))).data;
  assert.equal(outline(paying.structure), 'Docs*,Pro Docs');
  await refused(403, () => orgs.getPublishedContentSite(s.org, site.id, {}, as({ plans: ['gold'] })));
  await refused(403, () => orgs.getPublishedContentSite(s.org, site.id, {}, { headers: { 'X-Visitor-Token': sign({ exp, plans: [] }, 'wrong') } }));
  await refused(403, () => orgs.getPublishedContentSite(s.org, site.id, {}, as({ exp: exp - 7200 })));
});

test('a published site carries complete customization settings and a scripts list', async () => {
  const { client, org } = s;
  const { data: a } = await client.orgs.createSpace(org, { title: 'Custom A' });
  const { data: b } = await client.orgs.createSpace(org, { title: 'Custom B' });
  const { data: site } = await client.orgs.createSite(org, { title: 'Customized', visibility: 'public', spaces: [a.id, b.id] });
  await client.orgs.updateSiteById(org, site.id, { icon: { emoji: '📘' } });
  await client.orgs.publishSite(org, site.id);
  const { data: published } = await client.orgs.getPublishedContentSite(org, site.id);
  // site and structure are checked with the site tests above; these are the customizations'.
  const custom = published.customizations;
  assert.deepEqual(checkComponent('SiteCustomizationSettings', custom.site), []);
  assert.equal(custom.site.title, 'Customized');
  assert.deepEqual(custom.site.favicon, { emoji: '📘' });
  assert.equal(custom.site.styling.theme, 'clean');
  assert.deepEqual(custom.siteSpaces, {}); // no site space overrides the site's settings
  assert.deepEqual(published.scripts, []);

  const data = await graphql(s.token, 'query($o: ID!, $s: ID!) { publishedContentSite(organizationId: $o, siteId: $s) { customizations { site siteSpaces } scripts { script } } }', {
    o: org,
    s: site.id,
  });
  assert.deepEqual(data.publishedContentSite, { customizations: custom, scripts: [] });
});

test('a share link with a password and an expiry', async () => {
  const { orgs, spaces } = s.client;
  const guide = (await orgs.createSpace(s.org, { title: 'Private Guide' })).data.id;
  const { data: site } = await orgs.createSite(s.org, { title: 'Locked', visibility: 'share-link', spaces: [guide] });
  await orgs.publishSite(s.org, site.id);
  const header = 'X-Share-Link-Password';
  const withPassword = (p) => ({ headers: { [header]: p } });

  // Bad input names the field; a creator may not protect links.
  await refused(400, () => orgs.createSiteShareLink(s.org, site.id, { name: 'x', password: 'short' }));
  await refused(400, () => orgs.createSiteShareLink(s.org, site.id, { name: 'x', expiresAt: '2001-01-01T00:00:00Z' }));
  const creator = s.newUser('creator-links@example.com', 'create').client;
  await refused(403, () => creator.orgs.createSiteShareLink(s.org, site.id, { name: 'x', password: 'correct horse' }));
  const outsider = s.newOrg('Locked out', 'locked@example.org').client;
  await refused(404, () => outsider.orgs.createSiteShareLink(s.org, site.id, { name: 'x', password: 'correct horse' }));

  // The answer says a password is needed, never what it is.
  const { data: link } = await orgs.createSiteShareLink(s.org, site.id, { name: 'Board', password: 'correct horse' });
  assert.deepEqual(checkComponent('ShareLink', link), []);
  assert.equal(link.passwordProtected, true);
  assert.equal(link.password, undefined);
  assert.equal(link.expiresAt, undefined);
  const key = new URL(link.urls.published).searchParams.get('share');

  await refused(401, () => outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key }));
  await refused(401, () => outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key }, withPassword('wrong horse')));
  const { data: shared } = await outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key }, withPassword('correct horse'));
  assert.deepEqual(checkComponent('PublishedContentSite', shared), []);
  await refused(401, () => outsider.spaces.getSpaceById(guide, { shareKey: key }));
  assert.equal((await outsider.spaces.getSpaceById(guide, { shareKey: key }, withPassword('correct horse'))).data.id, guide);
  await refused(401, () => outsider.orgs.listSiteSpaces(s.org, site.id, { shareKey: key }));
  await outsider.orgs.listSiteSections(s.org, site.id, { shareKey: key }, withPassword('correct horse'));

  // Wrong guesses: one used above, four more, then 429 with Retry-After.
  for (let i = 0; i < 4; i++) {
    await refused(401, () => outsider.orgs.listSiteSpaces(s.org, site.id, { shareKey: key }, withPassword(`guess ${i}!`)));
  }
  await assert.rejects(
    () => outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key }, withPassword('guess 5!')),
    (err) => err.code === 429 && Number(err.response.headers.get('Retry-After')) >= 1,
  );

  // null removes the password (and its guesses); an expiry in two seconds.
  const expiresAt = new Date(Date.now() + 2000).toISOString();
  const { data: changed } = await orgs.updateSiteShareLinkById(s.org, site.id, link.id, { password: null, expiresAt });
  assert.deepEqual(checkComponent('ShareLink', changed), []);
  assert.equal(changed.passwordProtected, undefined);
  assert.equal(Date.parse(changed.expiresAt), Date.parse(expiresAt));
  await outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key });
  await new Promise((r) => setTimeout(r, 2100));
  // Expired: the same refusal as an unknown key, wherever a key is taken.
  await refused(404, () => outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key }));
  await refused(404, () => outsider.spaces.getSpaceById(guide, { shareKey: key }));
  await refused(404, () => outsider.orgs.listSiteSpaces(s.org, site.id, { shareKey: key }));
  await refused(404, () => outsider.orgs.listSiteSections(s.org, site.id, { shareKey: key }));
  const { data: renewed } = await orgs.updateSiteShareLinkById(s.org, site.id, link.id, { expiresAt: null });
  assert.equal(renewed.expiresAt, undefined);
  await outsider.orgs.getPublishedContentSite(s.org, site.id, { shareKey: key });
});
