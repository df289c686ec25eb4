// The official client against a real `docsapi serve`, as a docs renderer
// uses it: resolve a reader's URL to the site content it names,
// then read that content with the lookup's apiToken. Every answer is
// validated against the 0.130.0 schema.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { GitBookAPIError } from '@gitbook/api';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => {
  await s?.stop();
});

/** valid checks an answer against its operation's schema and returns its body. */
function valid(operationId, res) {
  assert.deepEqual(check(operationId, res.status, res.data), [], `${operationId}: ${JSON.stringify(res.data)}`);
  return res.data;
}

async function refused(code, fn) {
  await assert.rejects(fn, (err) => {
    assert.ok(err instanceof GitBookAPIError, `not a GitBookAPIError: ${err}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

async function refusedNaming(code, field, fn) {
  await assert.rejects(fn, (err) => {
    assert.ok(err instanceof GitBookAPIError, `not a GitBookAPIError: ${err}`);
    assert.equal(err.code, code, err.message);
    assert.ok(err.message.includes(`${field}: `), `${err.message} does not name ${field}`);
    return true;
  });
}

/** The payload of a JWT, read without verifying it (as the renderer does). */
const payload = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

/** An HS256 JWT of claims signed with secret. */
function sign(claims, secret) {
  const enc = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const body = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

async function graphql(query, variables) {
  const res = await fetch(`${s.endpoint}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const out = await res.json();
  assert.equal(out.errors, undefined, JSON.stringify(out.errors));
  return out.data;
}

/** site creates and publishes a site: Guide (+ variant Beta) in its default section, API in a second one. */
async function site(title, settings = {}, srv = s) {
  const { orgs, spaces } = srv.client;
  const space = async (name, template) => {
    const id = (await orgs.createSpace(srv.org, { title: name })).data.id;
    await spaces.applyTemplateToSpace(id, { id: template });
    return id;
  };
  const guide = await space(`${title} Guide`, 'getting-started');
  const beta = await space(`${title} Beta`, 'knowledge-base');
  const api = await space(`${title} API`, 'getting-started');
  const created = (await orgs.createSite(srv.org, { title, spaces: [guide, beta], ...settings })).data;
  await orgs.addSectionToSite(srv.org, created.id, { spaceId: api, title: 'API' });
  await orgs.publishSite(srv.org, created.id);
  const { structure } = (await orgs.getSiteStructure(srv.org, created.id)).data;
  const find = (id) => {
    for (const sec of structure) for (const ss of sec.siteSpaces) if (ss.space.id === id) return { section: sec, siteSpace: ss };
  };
  const published = (await orgs.getSiteById(srv.org, created.id)).data.urls.published;
  return { id: created.id, url: published, guide: { id: guide, ...find(guide) }, beta: { id: beta, ...find(beta) }, api: { id: api, ...find(api) } };
}

const resolve = async (client, body) => valid('resolvePublishedContentByUrl', await client.urls.resolvePublishedContentByUrl(body));

test('a published URL resolves to its section, variant and page', async () => {
  const d = await site('Handbook');
  const base = new URL(d.url).pathname + '/';
  const cases = [
    ['root', d.url, d.guide, '', base, true],
    ['page', `${d.url}/quick-start`, d.guide, 'quick-start', base, true],
    ['variant, nested page', `${d.url}/${d.beta.siteSpace.path}/knowledge-base/onboarding`, d.beta, 'knowledge-base/onboarding', `${base}${d.beta.siteSpace.path}/`, true],
    ['section', `${d.url}/${d.api.section.path}/faq`, d.api, 'faq', `${base}${d.api.section.path}/`, true],
    ['unknown path', `${d.url}/no/such/page`, d.guide, 'no/such/page', base, false],
  ];
  for (const [name, url, want, pathname, basePath, complete] of cases) {
    const got = await resolve(s.client, { url, visitor: { unsignedClaims: {} } });
    assert.deepEqual(
      [got.site, got.siteSection, got.siteSpace, got.space, got.pathname, got.basePath, got.siteBasePath, got.organization, got.complete],
      [d.id, want.section.id, want.siteSpace.id, want.id, pathname, basePath, base, s.org, complete],
      name,
    );
  }
  // The deprecated GET twin.
  const got = valid('getPublishedContentByUrl', await s.client.urls.getPublishedContentByUrl({ url: `${d.url}/faq` }));
  assert.equal(got.pathname, 'faq');

  // Unknown URLs: 404, or a redirect when asked for one.
  await refused(404, () => s.client.urls.resolvePublishedContentByUrl({ url: 'https://nowhere.example.com/' }));
  await refused(404, () => s.client.urls.resolvePublishedContentByUrl({ url: `${s.endpoint}/sites/${s.org}/nope` }));
  const redirect = await resolve(s.client, { url: 'https://nowhere.example.com/', redirectOnError: true });
  assert.equal(redirect.target, 'application');
  await refused(400, () => s.client.urls.resolvePublishedContentByUrl({ url: 'handbook' }));

  // By hostname: the site's root is the host's.
  await s.client.orgs.updateSiteById(s.org, d.id, { hostname: 'handbook.example.com' });
  const byHost = await resolve(s.client, { url: `https://handbook.example.com/${d.api.section.path}/quick-start` });
  assert.deepEqual([byHost.siteBasePath, byHost.basePath, byHost.space], ['/', `/${d.api.section.path}/`, d.api.id]);
  assert.equal(byHost.canonicalUrl, `https://handbook.example.com/${d.api.section.path}/quick-start`);
});

test('the apiToken reads its site as its visitor, nothing else, until its exp', async () => {
  const d = await site('Manual');
  const second = await site('Second');
  const other = (await s.client.orgs.createSpace(s.org, { title: 'Internal' })).data.id;
  const sister = s.newOrg('Sister', 'sister@example.com');
  const lookup = await resolve(s.client, { url: `${d.url}/${d.beta.siteSpace.path}/knowledge-base/onboarding` });
  const claims = payload(lookup.apiToken);
  assert.equal(claims.kind, 'site');
  // The default lifetime: an hour.
  assert.ok(Math.abs(claims.exp - (Date.now() / 1000 + 3600)) < 60, `exp ${claims.exp}`);
  const renderer = s.clientFor(lookup.apiToken);
  const revision = valid('getCurrentRevision', await renderer.spaces.getCurrentRevision(lookup.space));
  // The renderer's by-path read: the page path with %2F.
  const page = valid('getPageInRevisionByPath', await renderer.spaces.getPageInRevisionByPath(lookup.space, revision.id, encodeURIComponent(lookup.pathname)));
  assert.equal(page.title, 'Onboarding');
  const doc = valid('getPageDocumentInRevisionById', await renderer.spaces.getPageDocumentInRevisionById(lookup.space, revision.id, page.id, { evaluated: true }));
  assert.equal(doc.object, 'document');
  assert.ok(doc.nodes.length > 0);
  valid('getPublishedContentSite', await renderer.orgs.getPublishedContentSite(s.org, d.id));
  // The organization's members, as authors: without their email.
  const author = valid('getUserById', await renderer.users.getUserById(s.user));
  assert.equal(author.email, undefined);

  // Outside its site: refused.
  await refused(403, () => renderer.spaces.getSpaceById(other));
  await refused(403, () => renderer.orgs.getOrganizationById(s.org));
  await refused(403, () => renderer.orgs.getSiteById(s.org, d.id));
  await refused(403, () => renderer.orgs.createSpace(s.org, { title: 'Nope' }));
  await refused(403, () => renderer.orgs.getPublishedContentSite(s.org, second.id));
  // Another organization's admin reads this organization's space only through a site.
  await refused(404, () => sister.client.spaces.getPageDocumentInRevisionById(lookup.space, revision.id, page.id));

  // After exp: 401. A server whose apiTokens live 1 s (exp passes with
  // the 5 s leeway every replica's clock gets).
  const short = await startServer(['--site-token-ttl', '1s']);
  try {
    const e = await site('Brief', {}, short);
    const brief = await resolve(short.client, { url: e.url });
    assert.ok(payload(brief.apiToken).exp <= Date.now() / 1000 + 2);
    const briefReader = short.clientFor(brief.apiToken);
    valid('getSpaceById', await briefReader.spaces.getSpaceById(brief.space));
    await new Promise((r) => setTimeout(r, 6500));
    await refused(401, () => briefReader.spaces.getSpaceById(brief.space));
  } finally {
    await short.stop();
  }
});

test('share links, visitor tokens and claims decide what a URL opens', async () => {
  const { orgs } = s.client;
  const d = await site('Partners', { visibility: 'share-link' });
  await refused(404, () => s.client.urls.resolvePublishedContentByUrl({ url: d.url }));
  const link = (await orgs.createSiteShareLink(s.org, d.id, { name: 'Acme' })).data;
  const shareKey = new URL(link.urls.published).searchParams.get('share');
  const shared = await resolve(s.client, { url: `${d.url}/faq?share=${shareKey}` });
  assert.equal(shared.shareKey, shareKey);
  assert.equal(payload(shared.apiToken).shareKey, shareKey);
  valid('getSpaceById', await s.clientFor(shared.apiToken).spaces.getSpaceById(shared.space));
  // An expired link opens nothing.
  await orgs.updateSiteShareLinkById(s.org, d.id, link.id, { expiresAt: new Date(Date.now() + 1500).toISOString() });
  await new Promise((r) => setTimeout(r, 2000));
  await refused(404, () => s.client.urls.resolvePublishedContentByUrl({ url: `${d.url}?share=${shareKey}` }));

  // A private (visitor-auth) site with adaptive content.
  const v = await site('Members', { type: 'ultimate', visibility: 'visitor-auth' });
  await orgs.updateSiteById(s.org, v.id, { adaptiveContent: { enabled: true } });
  await orgs.updateSiteAdaptiveSchema(s.org, v.id, {
    jsonSchema: {
      type: 'object',
      properties: {
        plans: { type: 'array', description: 'Plans', items: { type: 'string', enum: ['free', 'pro'], description: 'A plan' } },
        unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', additionalProperties: false, properties: { beta: { type: 'boolean', description: 'Beta' } } },
      },
      additionalProperties: false,
    },
  });
  await orgs.updateSiteSpaceById(s.org, v.id, v.beta.siteSpace.id, { condition: 'visitor.claims.unsigned.beta === true' });
  await refused(403, () => s.client.urls.resolvePublishedContentByUrl({ url: v.url }));
  const { siteVisitorAuth } = await graphql('query($o: ID!, $s: ID!) { siteVisitorAuth(organizationId: $o, siteId: $s) { secret } }', { o: s.org, s: v.id });
  const jwtToken = sign({ exp: Math.floor(Date.now() / 1000) + 600, plans: ['pro'] }, siteVisitorAuth.secret);
  const betaURL = `${v.url}/${v.beta.siteSpace.path}/knowledge-base`;
  // The variant is hidden from this visitor: its path is a page path of the default space.
  const hidden = await resolve(s.client, { url: betaURL, visitor: { jwtToken } });
  assert.deepEqual([hidden.siteSpace, hidden.complete], [v.guide.siteSpace.id, false]);
  const shown = await resolve(s.client, { url: betaURL, visitor: { jwtToken, unsignedClaims: { beta: true } } });
  assert.deepEqual([shown.siteSpace, shown.complete], [v.beta.siteSpace.id, true]);
  assert.ok(shown.contextId);
  assert.deepEqual(payload(shown.apiToken).claims, { plans: ['pro'], unsigned: { beta: true } });
  valid('getSpaceById', await s.clientFor(shown.apiToken).spaces.getSpaceById(v.beta.id));
  await refused(404, () => s.clientFor(hidden.apiToken).spaces.getSpaceById(v.beta.id));
  await refused(403, () => s.client.urls.resolvePublishedContentByUrl({ url: v.url, visitor: { jwtToken: sign({ exp: 9999999999 }, 'wrong') } }));
});

test('redirects, search and insights of a site, as its renderer uses them', async () => {
  const { orgs } = s.client;
  const d = await site('Atlas');
  const lookup = await resolve(s.client, { url: d.url });
  const renderer = s.clientFor(lookup.apiToken);
  const revision = (await s.client.spaces.getCurrentRevision(d.api.id)).data;
  const faq = (await s.client.spaces.getPageInRevisionByPath(d.api.id, revision.id, 'faq')).data;

  // Redirects: a moved page's old path leads to its new URL.
  const redirect = valid('createSiteRedirect', await orgs.createSiteRedirect(s.org, d.id, {
    source: '/moved/faq', destination: { kind: 'site-page', siteSpaceId: d.api.siteSpace.id, pageId: faq.id },
  }));
  await refused(409, () => orgs.createSiteRedirect(s.org, d.id, { source: '/moved/faq', destination: { kind: 'site-space', siteSpaceId: d.api.siteSpace.id } }));
  await refused(400, () => orgs.createSiteRedirect(s.org, d.id, { source: 'moved', destination: { kind: 'site-space', siteSpaceId: d.api.siteSpace.id } }));
  assert.equal(valid('listSiteRedirects', await orgs.listSiteRedirects(s.org, d.id)).items.length, 1);
  const found = valid('getSiteRedirectBySource', await renderer.orgs.getSiteRedirectBySource(s.org, d.id, { source: '/moved/faq' }));
  assert.equal(found.target, `${d.url}/${d.api.section.path}/faq`);
  const followed = await resolve(s.client, { url: `${d.url}/moved/faq` });
  assert.deepEqual([followed.target, followed.redirect], ['content', found.target]);
  await refused(404, () => renderer.orgs.getSiteRedirectBySource(s.org, d.id, { source: '/nope' }));
  valid('updateSiteRedirectById', await orgs.updateSiteRedirectById(s.org, d.id, redirect.id, { source: '/moved/questions' }));
  const reader = s.newUser('atlas-reader@example.com', 'read');
  await refused(403, () => reader.client.orgs.deleteSiteRedirectById(s.org, d.id, redirect.id));
  assert.equal((await orgs.deleteSiteRedirectById(s.org, d.id, redirect.id)).status, 205);

  // Search: the sections' default content, or every site space.
  const byDefault = valid('searchSiteContent', await renderer.orgs.searchSiteContent(s.org, d.id, { query: 'install' }));
  assert.deepEqual(byDefault.items.map((it) => it.id).sort(), [d.guide.id, d.api.id].sort());
  const all = valid('searchSiteContent', await renderer.orgs.searchSiteContent(s.org, d.id, { query: 'week', scope: { mode: 'all' } }));
  assert.deepEqual(all.items.map((it) => it.id), [d.beta.id]);
  await refused(400, () => renderer.orgs.searchSiteContent(s.org, d.id, { query: '' }));

  // Insights: the renderer tracks, members aggregate.
  const session = { visitorId: 'reader-1', sessionId: 'session-1', cookies: {}, userAgent: 'test', language: 'en', referrer: null };
  const location = { url: `${d.url}/quick-start`, siteSection: d.guide.section.id, siteSpace: d.guide.siteSpace.id, siteShareKey: null, space: d.guide.id, revision: null, page: null };
  const tracked = await renderer.orgs.trackEventsInSiteById(s.org, d.id, { events: [{ type: 'page_view', session, location }, { type: 'search_open', session, location }] });
  assert.equal(tracked.status, 204);
  const agg = valid('aggregateSiteEvents', await orgs.aggregateSiteEvents(s.org, d.id, {
    range: 'last24Hours', groupBy: [{ column: 'eventType' }], select: [{ column: 'eventType' }, { column: 'eventsCount' }, { column: 'sessionsCount' }],
  }));
  assert.deepEqual(agg.columns, [
    { column: 'eventType', values: ['page_view', 'search_open'] },
    { column: 'eventsCount', values: [1, 1] },
    { column: 'sessionsCount', values: [1, 1] },
  ]);
  const segments = valid('listSiteVisitorSegments', await orgs.listSiteVisitorSegments(s.org, d.id));
  assert.deepEqual(segments.items.map((x) => [x.events, x.visitors, x.sessions]), [[2, 1, 1]]);
  await refused(403, () => renderer.orgs.aggregateSiteEvents(s.org, d.id, { range: 'last7Days' }));
  const sister = s.newOrg('Atlas Sister', 'atlas-sister@example.com');
  await refused(404, () => sister.client.orgs.listSiteVisitorSegments(s.org, d.id));
});

test('embeds and content URLs', async () => {
  const d = await site('Embeds');
  const lookup = await resolve(s.client, { url: d.url });
  const renderer = s.clientFor(lookup.apiToken);
  // Nothing to fetch there: a plain link.
  const plain = valid('getEmbedByUrlInSpace', await renderer.spaces.getEmbedByUrlInSpace(lookup.space, { url: `${s.endpoint}/nowhere` }));
  assert.deepEqual([plain.type, plain.title], ['link', `${s.endpoint}/nowhere`]);
  valid('getEmbedByUrl', await s.client.urls.getEmbedByUrl({ url: `${s.endpoint}/healthz` }));
  await refused(400, () => s.client.urls.getEmbedByUrl({ url: 'nope' }));
  const content = valid('getContentByUrl', await s.client.urls.getContentByUrl({ url: `${d.url}/${d.api.section.path}/faq` }));
  assert.deepEqual([content.space.id, content.page.title], [d.api.id, 'FAQ']);
  const sister = s.newOrg('Embeds Sister', 'embeds-sister@example.com');
  await refused(404, () => sister.client.urls.getContentByUrl({ url: `${s.endpoint}/s/${d.guide.id}` }));
});

test('publishing auth: the visitor key, the fallback URL, previews', async () => {
  const { orgs } = s.client;
  const v = await site('Private', { type: 'ultimate', visibility: 'visitor-auth' });
  const auth = valid('getSitePublishingAuthById', await orgs.getSitePublishingAuthById(s.org, v.id));
  assert.deepEqual([auth.object, auth.backend], ['publishing-auth', 'custom']);
  const updated = valid('updateSitePublishingAuthById', await orgs.updateSitePublishingAuthById(s.org, v.id, { backend: 'custom', fallbackURL: 'https://login.example.com/' }));
  assert.equal(updated.fallbackURL, 'https://login.example.com/');
  await refused(400, () => orgs.updateSitePublishingAuthById(s.org, v.id, { backend: 'integration' }));
  // A visitor without a token is sent to the fallback URL.
  const sent = await resolve(s.client, { url: v.url, redirectOnError: true });
  assert.deepEqual([sent.target, sent.redirect], ['external', 'https://login.example.com/']);
  const regenerated = valid('regenerateSitePublishingAuthById', await orgs.regenerateSitePublishingAuthById(s.org, v.id));
  assert.notEqual(regenerated.privateKey, auth.privateKey);
  // The preview URL carries a visitor token the resolution accepts.
  const preview = valid('getSitePublishingPreviewById', await orgs.getSitePublishingPreviewById(s.org, v.id, { siteSpace: v.api.siteSpace.id }));
  const u = new URL(preview.url);
  const jwtToken = u.searchParams.get('jwt_token');
  u.search = '';
  const opened = await resolve(s.client, { url: u.toString(), visitor: { jwtToken } });
  assert.equal(opened.siteSpace, v.api.siteSpace.id);
  const reader = s.newUser('private-reader@example.com', 'read');
  await refused(403, () => reader.client.orgs.getSitePublishingAuthById(s.org, v.id));
});

test('site customization, per site space overrides, in published reads', async () => {
  const { orgs } = s.client;
  const d = await site('Styled');
  const defaults = valid('getSiteCustomizationById', await orgs.getSiteCustomizationById(s.org, d.id));
  const put = valid('updateSiteCustomizationById', await orgs.updateSiteCustomizationById(s.org, d.id, { ...defaults, title: 'Styled Docs' }));
  assert.equal(put.title, 'Styled Docs');
  await refused(400, () => orgs.updateSiteCustomizationById(s.org, d.id, { title: 'Only a title' }));
  // Below the top level too: a color outside 0.130.0's pattern, named by its path.
  const badColor = { ...defaults, styling: { ...defaults.styling, primaryColor: { light: 'red', dark: '#000' } } };
  await refusedNaming(400, 'styling.primaryColor.light', () => orgs.updateSiteCustomizationById(s.org, d.id, badColor));
  await refusedNaming(400, 'styling.theme', () => orgs.overrideSiteSpaceCustomizationById(s.org, d.id, d.beta.siteSpace.id, { styling: { theme: 'neon' } }));
  const merged = valid('overrideSiteSpaceCustomizationById', await orgs.overrideSiteSpaceCustomizationById(s.org, d.id, d.beta.siteSpace.id, { title: 'Beta' }));
  assert.equal(merged.title, 'Beta');
  assert.equal(valid('getSiteSpaceCustomizationById', await orgs.getSiteSpaceCustomizationById(s.org, d.id, d.beta.siteSpace.id)).title, 'Beta');
  const lookup = await resolve(s.client, { url: d.url });
  const published = valid('getPublishedContentSite', await s.clientFor(lookup.apiToken).orgs.getPublishedContentSite(s.org, d.id));
  assert.equal(published.customizations.site.title, 'Styled Docs');
  assert.deepEqual(Object.keys(published.customizations.siteSpaces), [d.beta.siteSpace.id]);
  assert.equal((await orgs.deleteSiteSpaceCustomizationById(s.org, d.id, d.beta.siteSpace.id)).status, 205);
});

test('computed content: the builtin:openapi source without a page', async () => {
  const { orgs, spaces } = s.client;
  const spec = JSON.stringify({ openapi: '3.0.3', info: { title: 'Birds', version: '1.0.0' }, paths: { '/birds': { get: { summary: 'List birds', responses: { 200: { description: 'ok' } } } } } });
  await orgs.createOpenApiSpec(s.org, { slug: 'birds', source: { text: spec } });
  for (let i = 0; i < 150 && (await orgs.getOpenApiSpecBySlug(s.org, 'birds')).data.processingState !== 'complete'; i++) await new Promise((r) => setTimeout(r, 100));
  const space = (await orgs.createSpace(s.org, { title: 'Birds' })).data.id;
  const source = (props) => ({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'birds' } } }, props });
  const doc = valid('getComputedDocument', await spaces.getComputedDocument(space, { seed: 'x', source: source({ doc: 'models' }) }));
  assert.equal(doc.object, 'document');
  const rev = valid('getComputedRevision', await spaces.getComputedRevision(space, { seed: 'x', source: source({ models: false }) }));
  assert.equal(rev.pages.length, 1);
  assert.match(rev.pages[0].markdown, /List birds/);
  await refused(400, () => spaces.getComputedRevision(space, { seed: '', source: source({ models: false }) }));
});
