// The 0.130.0 contract test: drives every one of the 147 operations of the
// specification through the official client against a real docsapi, and
// validates every 2xx body against its response schema in the installed
// @gitbook/api@0.130.0 package (contract.mjs). Fails on any violation that
// is not in expectedViolations, on an expected violation that no longer
// happens, and on any of the 147 operations left unexercised.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import lz from 'lz-string';
import { startServer, IDP_CERT as CERT } from './harness.mjs';
import { check, operations, spec } from './contract.mjs';

// otherOperation finds the operationId of a client method outside the 147
// (createSpace, publishSite, ...): their answers are validated too, though
// only the 147 count as covered. The names differ only in case.
const allIds = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op?.operationId).filter(Boolean));
const otherOperation = (name) => allIds.find((id) => id.toLowerCase() === name.toLowerCase());

// Violations excused while another change is under way. Each names the
// operation, where in the body (instancePath, a regular expression), what
// the schema says, and who fixes it. Empty: every answer must validate.
const expectedViolations = [];

// A 2×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR4nGP4z8DwHwQZGBgAHPgD/fUA8XMAAAAASUVORK5CYII=', 'base64');
// A decodable 1×1 PNG (integration icons are decoded).
const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PETS = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: { '/pets': { get: { summary: 'List pets', responses: { 200: { description: 'ok' } } } } },
});
const files = {
  '/guide.md': ['text/markdown', '# Guide\n\nRead [the tour](site/tour.md), [a missing page](missing.md) and [the site](https://example.com/x).\n\n![logo](logo.png)\n\n## Setup\n\nThe hyperdrive needs calibration.\n'],
  '/site/': ['text/html', '<html><head><title>Home</title></head><body><main><h1>Site home</h1><p>Start the <a href="/site/tour">tour</a>.</p><img src="/logo.png" alt="logo"></main></body></html>'],
  '/site/tour': ['text/html', '<html><body><main><h1>Tour</h1><p>Back <a href="/site/">home</a>. Nebula sightseeing.</p></main></body></html>'],
  '/logo.png': ['image/png', PNG],
  '/release.md': ['text/markdown', '# Release notes\n\nSee [the tour](site/tour.md).\n\n![logo](logo.png)\n'],
  '/pets.json': ['application/json', PETS],
};

// A page with every Markdown construct the document format covers.
const RICH = [
  '# One', '## Two', '### Three', '#### Four',
  'Text with **bold**, *italic*, ~~struck~~, `code`, a [link](https://example.com), <https://example.org> and ![inline](https://example.com/i.png) image.',
  'Hard  \nbreak.',
  '- one\n- two\n  - nested', '3. three\n4. four', '- [ ] todo\n- [x] done',
  '```js\nconst a = 1;\nconsole.log(a);\n```', '    indented code',
  '> quoted *text*', '> [!WARNING]\n> Careful.', '> [!TIP]\n> A tip.',
  '---',
  '| a | b |\n|---|---|\n| 1 | **2** |',
  '<div>html</div>',
  '![alone](https://example.com/alone.png)',
].join('\n\n');


// One local server: static files for imports and specs, a
// LibreTranslate-compatible /translate (upper-cases), and an integration
// development tunnel that answers renders with an element.
let host, origin;
function serve(req, res, body) {
  if (req.method === 'POST' && req.url === '/translate') {
    const { q, target } = JSON.parse(body || '{}');
    if (target === 'de') {
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'German is not offered' }));
      return;
    }
    const out = (Array.isArray(q) ? q : [q]).map((t) => String(t).toUpperCase());
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ translatedText: Array.isArray(q) ? out : out[0] }));
    return;
  }
  if (req.method === 'POST' && req.url === '/tunnel') {
    const event = JSON.parse(body || '{}');
    const answer = event.type === 'ui_render' ? { type: 'element', element: { type: 'block', children: [] } } : {};
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    return;
  }
  const file = files[req.url];
  if (!file) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
}

let s;
const violations = [];
const covered = new Set();
const failingBodies = new Map(); // operationId -> first body that failed
let validated = 0;

// watch wraps a client so that every call is validated (its 2xx body
// against its operation's schema) and calls of the 147 are counted.
function watch(client) {
  return new Proxy(client, {
    get(target, ns) {
      const group = target[ns];
      if (!group || typeof group !== 'object') return group;
      return new Proxy(group, {
        get(g, name) {
          const fn = g[name];
          const method = `${String(ns)}.${String(name)}`;
          const operationId = operations.get(method) ?? otherOperation(String(name));
          if (typeof fn !== 'function' || !operationId) return fn;
          return async (...args) => {
            const res = await fn.apply(g, args);
            if (operations.has(method)) covered.add(operationId);
            const found = check(operationId, res.status, res.data);
            validated++;
            violations.push(...found);
            if (found.length && !failingBodies.has(operationId)) failingBodies.set(operationId, res.data);
            return res;
          };
        },
      });
    },
  });
}

before(async () => {
  host = http.createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    serve(req, res, body);
  });
  host.listen(0, '127.0.0.1');
  await once(host, 'listening');
  origin = `http://127.0.0.1:${host.address().port}`;
  s = await startServer(['--translate-url', origin, '--translate-key', 'contract']);
});
after(async () => {
  await s?.stop();
  host?.close();
});

const flat = (pages) => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// until polls fn (at most 15 s) until ok(result).
async function until(fn, ok) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const r = await fn();
    if (ok(r)) return r;
    if (Date.now() > deadline) throw new Error('condition not met within 15 s');
    await sleep(25);
  }
}

async function graphql(query, variables) {
  const res = await fetch(`${s.endpoint}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const out = await res.json();
  assert.equal(out.errors, undefined, JSON.stringify(out.errors));
  return out.data;
}

test('every operation answers in the shape of @gitbook/api@0.130.0', async (t) => {
  const c = watch(s.client);
  const { orgs, spaces, collections, integrations, emailDomains } = c;
  const org = s.org;

  // Organizations and members.
  await orgs.listOrganizationsForAuthenticatedUser();
  await orgs.getOrganizationById(org);
  await orgs.updateOrganizationById(org, { title: 'Contract Org' });
  const invite = (await c.orgs.createOrganizationInvite(org, { role: 'read' })).data;
  await orgs.deleteOrganizationInviteById(org, invite.id);
  await emailDomains.getOrganizationsForEmailDomain('example.com');
  const editor = s.newUser('contract-editor@example.com', 'edit');
  const leaver = s.newUser('contract-leaver@example.com', 'read');
  await orgs.listMembersInOrganizationById(org);
  await orgs.getMemberInOrganizationById(org, editor.user);
  await orgs.updateMemberInOrganizationById(org, editor.user, { role: 'create' });
  await watch(editor.client).orgs.updateOrganizationMemberLastSeenAt(org);
  await orgs.setUserAsSsoMemberForOrganization(org, leaver.user);
  await orgs.removeMemberFromOrganizationById(org, leaver.user);

  // Teams.
  const team = (await orgs.createOrganizationTeam(org, { title: 'Writers', members: [editor.user] })).data;
  await orgs.listTeamsInOrganizationById(org);
  await orgs.getTeamInOrganizationById(org, team.id);
  await orgs.updateTeamInOrganizationById(org, team.id, { title: 'Authors' });
  await orgs.updateMembersInOrganizationTeam(org, team.id, { add: [s.user] });
  await orgs.listTeamMembersInOrganizationById(org, team.id);
  await orgs.listTeamsForOrganizationMember(org, editor.user);
  await orgs.deleteMemberFromOrganizationTeamById(org, team.id, s.user);
  await orgs.addMemberToOrganizationTeamById(org, team.id, s.user, { role: 'member' });

  // SAML.
  const saml = (await orgs.createOrganizationSamlProvider(org, { label: 'Okta' })).data;
  await orgs.updateOrganizationSamlProvider(org, saml.id, {
    entityID: 'https://idp.example.com/metadata', ssoURL: 'https://idp.example.com/sso', certificate: CERT, defaultTeam: team.id,
  });
  await orgs.getOrganizationSamlProviderById(org, saml.id);
  await orgs.listSamlProvidersInOrganizationById(org);
  await orgs.listSsoProviderLoginsInOrganization(org);

  // Collections and spaces.
  const guides = (await orgs.createCollection(org, { title: 'Guides' })).data;
  const inner = (await orgs.createCollection(org, { title: 'Inner', parent: guides.id })).data;
  await orgs.listCollectionsInOrganizationById(org);
  await collections.getCollectionById(guides.id);
  await collections.updateCollectionById(guides.id, { description: 'All guides' });
  await collections.moveCollection(inner.id, { parent: null });
  const space = (await c.orgs.createSpace(org, { title: 'Handbook', emoji: '📘', parent: guides.id })).data;
  await collections.listSpacesInCollectionById(guides.id);
  await spaces.getSpaceById(space.id);
  await spaces.updateSpaceById(space.id, { title: 'The Handbook' });
  const iconic = (await c.orgs.createSpace(org, { title: 'Iconic' })).data;
  await spaces.updateSpaceById(iconic.id, { icon: 'https://example.com/icon.png', visibility: 'public', defaultLevel: null, editMode: 'locked' });
  const copy = (await spaces.duplicateSpace(space.id)).data;
  await spaces.moveSpace(copy.id, { parent: null });
  await spaces.deleteSpaceById(copy.id);
  await spaces.restoreSpace(copy.id);
  await orgs.listSpacesForOrganizationMember(org, editor.user);
  const sister = s.newOrg('Sister', 'contract-sister@example.com');
  await sister.client.orgs.inviteUsersToOrganization(sister.organization, { emails: [{ email: 'owner@example.com', role: 'admin' }] });
  const leaving = (await c.orgs.createSpace(org, { title: 'Leaving' })).data;
  await spaces.transferSpace(leaving.id, { organization: sister.organization });
  await collections.transferCollection(inner.id, { organization: sister.organization });

  // Content: imports, pages, files, links, backlinks, search, templates.
  await spaces.importContent(space.id, { url: `${origin}/site/`, source: 'website' });
  await spaces.importContent(space.id, { url: `${origin}/guide.md`, source: 'markdown' });
  await spaces.getCurrentRevision(space.id);
  const pages = flat((await spaces.listPages(space.id)).data.pages);
  const guide = pages.find((p) => p.title === 'Guide');
  const tour = pages.find((p) => p.title === 'Tour');
  await spaces.getPageById(space.id, guide.id, { format: 'markdown' });
  await spaces.getPageById(space.id, guide.id, { format: 'document' });
  const logo = (await spaces.listFiles(space.id)).data.items[0];
  await spaces.getFileById(space.id, logo.id);
  await spaces.listSpaceFileBacklinks(space.id, logo.id);
  await spaces.listSpaceLinks(space.id);
  await spaces.listPageLinksInSpace(space.id, guide.id);
  await c.spaces.listSpacePageBacklinks(space.id, tour.id);
  await spaces.searchSpaceContent(space.id, { query: 'hyperdrive' });
  await orgs.searchOrganizationContent(org, { query: 'nebula' });
  const scratch = (await c.orgs.createSpace(org, { title: 'Scratch' })).data;
  await spaces.applyTemplateToSpace(scratch.id, { id: 'blank' });
  // Every page type: a group holding a document, a link page, a computed page.
  const createPage = async (input) => (await graphql(
    'mutation($t: ContentTarget!, $in: CreatePageInput!) { createPage(target: $t, input: $in) { page { id } } }',
    { t: { space: scratch.id }, in: input },
  )).createPage.page.id;
  const groupId = await createPage({ title: 'Group', type: 'GROUP' });
  await createPage({ title: 'Inside', parent: groupId, markdown: 'In the group, see [the guide](https://example.com/guide).' });
  await createPage({ title: 'Elsewhere', type: 'LINK', target: { kind: 'url', url: 'https://example.com' } });
  await c.orgs.createOpenApiSpec(org, { slug: 'pets-ref', source: { text: PETS } });
  await until(async () => (await c.orgs.getOpenApiSpecBySlug(org, 'pets-ref')).data, (d) => d.processingState === 'complete');
  const computedId = await createPage({
    title: 'Reference', type: 'COMPUTED',
    computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets-ref' } } }, props: { models: false } },
  });
  await spaces.listPages(scratch.id);
  await spaces.getCurrentRevision(scratch.id);
  await spaces.getPageById(scratch.id, groupId);
  // Every Markdown construct docsapi turns into document blocks.
  const rich = await createPage({ title: 'Rich', markdown: RICH });
  await spaces.getPageById(scratch.id, rich, { format: 'document' });
  await spaces.getPageById(scratch.id, rich, { format: 'markdown' });
  await spaces.getPageById(scratch.id, computedId, { format: 'document' });

  // Change requests and their content.
  const cr = (await spaces.createChangeRequest(space.id, { subject: 'Release notes' })).data;
  await spaces.importContentInChangeRequest(space.id, cr.id, { url: `${origin}/release.md`, source: 'markdown' });
  await spaces.listChangeRequestsForSpace(space.id);
  await spaces.getChangeRequestById(space.id, cr.id);
  await spaces.updateChangeRequestById(space.id, cr.id, { subject: 'Release notes, v2' });
  await spaces.getRevisionOfChangeRequestById(space.id, cr.id);
  const crPages = flat((await spaces.listPagesInChangeRequest(space.id, cr.id)).data.pages);
  const release = crPages.find((p) => p.title === 'Release notes');
  const crTour = crPages.find((p) => p.title === 'Tour');
  await spaces.getPageInChangeRequestById(space.id, cr.id, release.id);
  const crFile = (await spaces.listFilesInChangeRequestById(space.id, cr.id)).data.items[0];
  await spaces.getFileInChangeRequestById(space.id, cr.id, crFile.id);
  await spaces.listChangeRequestFileBacklinks(space.id, cr.id, crFile.id);
  await spaces.listPageLinksInChangeRequest(space.id, cr.id, release.id);
  await spaces.listChangeRequestPageBacklinks(space.id, cr.id, crTour.id);
  await spaces.getChangeRequestChanges(space.id, cr.id, { limit: 50 });
  const importedRevision = (await c.spaces.getCurrentRevision(space.id)).data;
  await spaces.getRevisionSemanticChanges(space.id, importedRevision.id, { limit: 50 });

  // Comments in the change request.
  const crComment = (await spaces.postCommentInChangeRequest(space.id, cr.id, { body: { markdown: 'Mention the FAQ?' }, page: release.id })).data;
  await spaces.listCommentsInChangeRequest(space.id, cr.id);
  await spaces.getCommentInChangeRequest(space.id, cr.id, crComment.id);
  await spaces.updateCommentInChangeRequest(space.id, cr.id, crComment.id, { addedReactions: ['👍'] });
  const crReply = (await spaces.postCommentReplyInChangeRequest(space.id, cr.id, crComment.id, { body: { markdown: 'Yes.' } })).data;
  await spaces.listCommentRepliesInChangeRequest(space.id, cr.id, crComment.id);
  await spaces.getCommentReplyInChangeRequest(space.id, cr.id, crComment.id, crReply.id);
  await spaces.updateCommentReplyInChangeRequest(space.id, cr.id, crComment.id, crReply.id, { body: { markdown: 'Yes, done.' } });
  await spaces.listCommentersInChangeRequest(space.id, cr.id);
  await spaces.deleteCommentReplyInChangeRequest(space.id, cr.id, crComment.id, crReply.id);
  await spaces.deleteCommentInChangeRequest(space.id, cr.id, crComment.id);

  // Main moves on; the change request catches up, is exported and merged.
  await c.spaces.importContent(space.id, { url: `${origin}/site/`, source: 'website' });
  await spaces.updateChangeRequest(space.id, cr.id);
  await spaces.getRevisionOfChangeRequestById(space.id, cr.id); // an update revision
  const dropped = (await spaces.createChangeRequest(space.id, { subject: 'Dropped' })).data;
  await spaces.updateChangeRequestById(space.id, dropped.id, { status: 'archived' });
  await spaces.listChangeRequestsForSpace(space.id, { status: 'archived' });
  await spaces.getChangeRequestPdf(space.id, cr.id, {});
  await spaces.mergeChangeRequest(space.id, cr.id);
  await spaces.getCurrentRevision(space.id); // a merge revision
  await spaces.listChangeRequestsForSpace(space.id, { status: 'merged' });
  await spaces.getChangeRequestById(space.id, cr.id);

  // Comments in the space.
  const comment = (await spaces.postCommentInSpace(space.id, { body: { markdown: 'Hello' }, page: guide.id })).data;
  await spaces.listCommentsInSpace(space.id);
  await spaces.getCommentInSpace(space.id, comment.id, { format: 'document' });
  await spaces.updateCommentInSpace(space.id, comment.id, { addedReactions: ['🎉'] });
  const reply = (await spaces.postCommentReplyInSpace(space.id, comment.id, { body: { markdown: 'Hi' } })).data;
  await spaces.listCommentRepliesInSpace(space.id, comment.id);
  await spaces.getCommentReplyInSpace(space.id, comment.id, reply.id);
  await spaces.updateCommentReplyInSpace(space.id, comment.id, reply.id, { body: { markdown: 'Hi there' } });
  await spaces.listCommentersInSpace(space.id);
  await spaces.updateCommentInSpace(space.id, comment.id, { resolved: true });
  await spaces.getCommentInSpace(space.id, comment.id, { format: 'markdown' });
  await watch(editor.client).spaces.listCommentsInSpace(space.id, { status: 'resolved' });
  await spaces.deleteCommentReplyInSpace(space.id, comment.id, reply.id);
  await spaces.deleteCommentInSpace(space.id, comment.id);

  // Sites, site spaces, sections, groups, share links, adaptive content.
  const sp = async (title) => (await c.orgs.createSpace(org, { title })).data.id;
  const [api, sdk, beta] = [await sp('API'), await sp('SDK'), await sp('Beta')];
  const site = (await orgs.createSite(org, { title: 'Developer Docs', type: 'ultimate', visibility: 'share-link', spaces: [space.id] })).data;
  await orgs.listSites(org);
  await orgs.getSiteById(org, site.id);
  await orgs.updateSiteById(org, site.id, { adaptiveContent: { enabled: true } });
  await orgs.updateSiteById(org, site.id, { icon: { emoji: '📘' } });
  await orgs.updateSiteById(org, site.id, { icon: { icon: { light: 'https://example.com/l.png', dark: 'https://example.com/d.png' } } });
  await orgs.updateSiteById(org, site.id, { icon: {} });
  await orgs.updateSiteById(org, site.id, { icon: null });
  await orgs.updateSiteAdaptiveSchema(org, site.id, {
    jsonSchema: {
      type: 'object',
      properties: { plans: { type: 'array', description: 'Plans', items: { type: 'string', enum: ['free', 'pro'], description: 'A plan' } } },
      additionalProperties: false,
    },
  });
  await orgs.getSiteAdaptiveSchema(org, site.id);
  await orgs.listSiteAdaptiveTemplateConditions(org, site.id);
  const betaSiteSpace = (await orgs.addSpaceToSite(org, site.id, { spaceId: beta })).data;
  const siteSpaces = (await orgs.listSiteSpaces(org, site.id)).data.items;
  await orgs.updateSiteSpaceById(org, site.id, betaSiteSpace.id, { condition: "visitor.claims.plans.includes('pro')" });
  await orgs.moveSiteSpace(org, site.id, betaSiteSpace.id, { position: { before: { type: 'site-space', siteSpace: siteSpaces[0].id } } });
  const apiSection = (await orgs.addSectionToSite(org, site.id, { spaceId: api, title: 'API', icon: 'code' })).data;
  const sdkSection = (await orgs.addSectionToSite(org, site.id, { spaceId: sdk, title: 'SDKs' })).data;
  await orgs.listSiteSections(org, site.id);
  await orgs.updateSiteSectionById(org, site.id, sdkSection.id, { title: 'SDK' });
  await orgs.moveSiteSection(org, site.id, sdkSection.id, { position: { before: { type: 'site-section', siteSection: apiSection.id } } });
  const group = (await orgs.addSectionGroupToSite(org, site.id, { title: 'Reference', sections: [apiSection.id] })).data;
  await orgs.listSiteSectionGroups(org, site.id);
  await orgs.updateSiteSectionGroupById(org, site.id, group.id, { title: 'References' });
  await orgs.addSectionToGroup(org, site.id, group.id, { sectionId: sdkSection.id });
  const top = (await c.orgs.getSiteStructure(org, site.id)).data.structure.find((x) => x.object === 'site-section');
  await orgs.moveSiteSectionGroup(org, site.id, group.id, { position: { before: { type: 'site-section', id: top.id } } });
  await c.orgs.publishSite(org, site.id);
  const link = (await orgs.createSiteShareLink(org, site.id, { name: 'Partners' })).data;
  const shareKey = new URL(link.urls.published).searchParams.get('share');
  await orgs.getPublishedContentSite(org, site.id, { shareKey });
  // Someone outside the organization reads through the share key.
  const outsider = watch(sister.client);
  await outsider.orgs.getPublishedContentSite(org, site.id, { shareKey });
  await outsider.spaces.getSpaceById(space.id, { shareKey });
  await outsider.orgs.listSiteSpaces(org, site.id, { shareKey });
  await outsider.orgs.listSiteSections(org, site.id, { shareKey });
  await orgs.listSiteShareLinks(org, site.id);
  await orgs.updateSiteShareLinkById(org, site.id, link.id, { active: false });
  await orgs.deleteSiteShareLinkById(org, site.id, link.id);
  await orgs.removeSectionFromGroup(org, site.id, group.id, sdkSection.id);
  await orgs.deleteSiteSectionGroupById(org, site.id, group.id);
  await orgs.deleteSiteSectionById(org, site.id, sdkSection.id);
  await orgs.deleteSiteSpaceById(org, site.id, betaSiteSpace.id);
  // A public site of site spaces only (structure type siteSpaces), read without a key.
  const flatSite = (await orgs.createSite(org, { title: 'Flat Docs', visibility: 'public', spaces: [api, sdk] })).data;
  await c.orgs.publishSite(org, flatSite.id);
  await watch(sister.client).orgs.getPublishedContentSite(org, flatSite.id);
  // A renderer resolves the flat site's URL and reads a page's
  // document with the lookup's apiToken.
  await c.spaces.applyTemplateToSpace(api, { id: 'getting-started' });
  const flatURL = (await c.orgs.getSiteById(org, flatSite.id)).data.urls.published;
  const lookup = (await c.urls.resolvePublishedContentByUrl({ url: `${flatURL}/quick-start`, visitor: { unsignedClaims: {} } })).data;
  assert.equal(lookup.pathname, 'quick-start');
  await c.urls.getPublishedContentByUrl({ url: flatURL });
  await c.urls.resolvePublishedContentByUrl({ url: 'https://nowhere.example.com/', redirectOnError: true });
  const renderer = watch(s.clientFor(lookup.apiToken));
  const readerRevision = (await renderer.spaces.getCurrentRevision(lookup.space)).data;
  const quickStart = (await renderer.spaces.getPageInRevisionByPath(lookup.space, readerRevision.id, encodeURIComponent(lookup.pathname))).data;
  await renderer.spaces.getPageDocumentInRevisionById(lookup.space, readerRevision.id, quickStart.id, { evaluated: true });
  await renderer.orgs.searchSiteContent(org, flatSite.id, { query: 'install', scope: { mode: 'all' } });
  await orgs.searchSiteContent(org, flatSite.id, { query: 'install' });
  const apiSiteSpace = (await c.orgs.listSiteSpaces(org, flatSite.id)).data.items.find((ss) => ss.space.id === api);
  const redirect = (await orgs.createSiteRedirect(org, flatSite.id, {
    source: '/old/start', destination: { kind: 'site-page', siteSpaceId: apiSiteSpace.id, pageId: quickStart.id },
  })).data;
  await orgs.listSiteRedirects(org, flatSite.id);
  await orgs.updateSiteRedirectById(org, flatSite.id, redirect.id, { destination: { kind: 'site-space', siteSpaceId: apiSiteSpace.id } });
  await renderer.orgs.getSiteRedirectBySource(org, flatSite.id, { source: '/old/start' });
  await orgs.deleteSiteRedirectById(org, flatSite.id, redirect.id);
  const session = { visitorId: 'v1', sessionId: 's1', cookies: {}, userAgent: 'contract', language: 'en', referrer: null };
  const location = { url: `${flatURL}/quick-start`, siteSection: null, siteSpace: apiSiteSpace.id, siteShareKey: null, space: api, revision: readerRevision.id, page: quickStart.id };
  await renderer.orgs.trackEventsInSiteById(org, flatSite.id, { events: [{ type: 'page_view', session, location }] });
  await orgs.aggregateSiteEvents(org, flatSite.id, { range: 'last7Days', groupBy: [{ column: 'eventType' }], select: [{ column: 'eventType' }, { column: 'eventsCount' }] });
  await orgs.listSiteVisitorSegments(org, flatSite.id);
  await renderer.spaces.getEmbedByUrlInSpace(lookup.space, { url: `${origin}/site/` });
  await c.urls.getEmbedByUrl({ url: `${origin}/missing` });
  await c.urls.getContentByUrl({ url: `${flatURL}/quick-start` });
  await c.urls.getContentByUrl({ url: (await c.spaces.getSpaceById(api)).data.urls.app });
  await orgs.getSitePublishingAuthById(org, flatSite.id);
  await orgs.updateSitePublishingAuthById(org, flatSite.id, { backend: 'custom', fallbackURL: 'https://login.example.com/' });
  await orgs.regenerateSitePublishingAuthById(org, flatSite.id);
  await orgs.getSitePublishingPreviewById(org, flatSite.id, { siteSpace: apiSiteSpace.id });
  const customization = (await orgs.getSiteCustomizationById(org, flatSite.id)).data;
  await orgs.updateSiteCustomizationById(org, flatSite.id, { ...customization, title: 'Flat Handbook' });
  await orgs.overrideSiteSpaceCustomizationById(org, flatSite.id, apiSiteSpace.id, { title: 'API', styling: { theme: 'muted' } });
  await orgs.getSiteSpaceCustomizationById(org, flatSite.id, apiSiteSpace.id);
  await orgs.getPublishedContentSite(org, flatSite.id);
  await orgs.deleteSiteSpaceCustomizationById(org, flatSite.id, apiSiteSpace.id);
  const spare = (await orgs.createSite(org, { title: 'Spare' })).data;
  await orgs.deleteSiteById(org, spare.id);

  // OpenAPI specs.
  await orgs.createOpenApiSpec(org, { slug: 'pets', source: { text: PETS } });
  await until(async () => (await orgs.getOpenApiSpecBySlug(org, 'pets')).data, (d) => d.processingState === 'complete');
  await orgs.listOpenApiSpecs(org);
  const petsSource = (props) => ({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } }, props });
  await spaces.getComputedDocument(space.id, { seed: 'contract', source: petsSource({ doc: 'models' }) });
  await spaces.getComputedRevision(space.id, { seed: 'contract', source: petsSource({ models: true }) });
  await orgs.createOrUpdateOpenApiSpecBySlug(org, 'events', { source: { url: `${origin}/pets.json` } });
  await orgs.createOrUpdateOpenApiSpecBySlug(org, 'events', { source: { text: 'openapi: [' } });
  await until(async () => (await orgs.getOpenApiSpecBySlug(org, 'events')).data, (d) => d.processingState === 'complete' && d.lastProcessErrorCode);
  await orgs.createOrUpdateOpenApiSpecBySlug(org, 'events', { source: { text: PETS } });
  await orgs.updateOpenApiSpecBySlug(org, 'events', { visibility: 'public' });
  await orgs.deleteOpenApiSpecBySlug(org, 'events');

  // Translations.
  const tr = (await orgs.createTranslation(org, { language: 'fr', source: { space: scratch.id, language: 'en' } })).data;
  await until(async () => (await orgs.getTranslation(org, tr.id)).data, (d) => d.status === 'completed');
  await orgs.listTranslations(org);
  await orgs.updateTranslation(org, tr.id, { instructions: { object: 'document', data: { schemaVersion: 1 }, nodes: [] } });
  await orgs.deleteTranslation(org, tr.id);
  // A run that fails (the provider refuses German) ends completed, with error.
  const lost = (await orgs.createTranslation(org, { language: 'de', source: { space: scratch.id, language: 'en' } })).data;
  const failed = await until(async () => (await orgs.getTranslation(org, lost.id)).data, (d) => d.status !== 'pending' && d.status !== 'running');
  assert.equal(failed.status, 'completed');
  assert.equal(failed.error?.code, 'PROVIDER_ERROR');
  await orgs.listTranslations(org);

  // Integrations: publish, install, develop through the tunnel, events, render.
  const name = 'contract-kit';
  await integrations.publishIntegration(name, {
    title: 'Contract kit', description: 'Checks shapes', script: 'export default {}', scopes: ['space:content:read'],
    organization: org, categories: ['content'],
    configurations: { account: { properties: { token: { type: 'string' } } } },
  });
  await integrations.publishIntegration('contract-full', {
    title: 'Contract full', description: 'Every field', script: 'export default {}', scopes: ['space:content:read', 'site:metadata:read'],
    organization: org, categories: ['analytics', 'other'], target: 'space', visibility: 'unlisted', summary: 'Everything',
    icon: PNG_1x1, previewImages: [PNG_1x1],
    externalLinks: [{ label: 'Home', url: 'https://example.com' }], contentSecurityPolicy: { 'script-src': "'self'" },
    configurations: { space: { properties: { path: { type: 'string', title: 'Path', description: 'Where' } }, required: ['path'] } },
  });
  await integrations.getIntegrationByName('contract-full');
  await integrations.unpublishIntegration('contract-full');
  await integrations.listIntegrations();
  await integrations.getIntegrationByName(name);
  const installation = (await integrations.installIntegration(name, { organization: org })).data;
  await integrations.listIntegrationInstallations(name);
  const post = (kind, body) => fetch(`${s.endpoint}/v1/integrations/${name}/installations/${installation.id}/${kind}`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` }, body: JSON.stringify(body),
  });
  assert.equal((await post('spaces', { space: space.id })).status, 201);
  await c.orgs.publishSite(org, site.id);
  assert.equal((await post('sites', { site: site.id })).status, 201);
  await integrations.listIntegrationSpaceInstallations(name);
  await integrations.listIntegrationSpaceInstallations(name, { extended: true });
  await integrations.listIntegrationSiteInstallations(name);
  await integrations.listIntegrationSiteInstallations(name, { extended: true });
  await integrations.setIntegrationDevelopmentMode(name, { tunnelUrl: `${origin}/tunnel`, all: true });
  const request = lz.compressToEncodedURIComponent(JSON.stringify({
    componentId: 'panel', props: { title: 'Hi' }, context: { type: 'configuration_account', theme: 'light', organizationId: org },
  }));
  await integrations.renderIntegrationUiWithGet(name, { request });
  await integrations.renderIntegrationUiWithPost(name, {
    componentId: 'panel', props: { title: 'Hi' }, context: { type: 'configuration_account', theme: 'light', organizationId: org },
  });
  const events = await until(async () => (await integrations.listIntegrationEvents(name)).data, (d) => d.items.length > 0);
  await integrations.getIntegrationEvent(name, events.items[0].id);
  // Deleting the site uninstalls the integration from it, with an event
  // (read once its delivery to the tunnel is done: while it is queued its
  // status is pending, a docsapi addition outside 0.130.0; see README).
  await orgs.deleteSiteById(org, site.id);
  const deleted = await until(async () => (await s.client.integrations.listIntegrationEvents(name)).data,
    (d) => d.items.some((e) => e.payload.type === 'site_installation_deleted' && e.status !== 'pending'));
  await integrations.listIntegrationEvents(name);
  await integrations.getIntegrationEvent(name, deleted.items.find((e) => e.payload.type === 'site_installation_deleted').id);
  await integrations.disableIntegrationDevelopmentMode(name);
  await integrations.unpublishIntegration(name);

  // GraphQL answers the same new fields as REST.
  const loc = '{ kind url organization { id } space { id type } page { id } file { id } versionContext { type revision { id } changeRequest { id } } }';
  const gql = await graphql(`query($o: ID!, $s: ID!, $site: ID!, $cr: ID!, $file: ID!) {
    space(spaceId: $s) { type }
    site(organizationId: $o, siteId: $site) { defaultSpace }
    openAPISpec(organizationId: $o, slug: "pets") { permissions { view edit delete } }
    commenters(spaceId: $s) { count total }
    spaceLinks(spaceId: $s) { items { status targetReference ${loc} locationReferences ${loc} } }
    spaceFileBacklinks(spaceId: $s, fileId: $file, changeRequestId: $cr) { items ${loc} }
  }`, { o: org, s: space.id, site: flatSite.id, cr: cr.id, file: crFile.id });
  const rest = async (p) => (await p).data;
  assert.equal(gql.space.type, (await rest(c.spaces.getSpaceById(space.id))).type);
  assert.equal(gql.site.defaultSpace, (await rest(c.orgs.getSiteById(org, flatSite.id))).defaultSpace);
  assert.equal(gql.site.defaultSpace, api);
  assert.deepEqual(gql.openAPISpec.permissions, (await rest(c.orgs.getOpenApiSpecBySlug(org, 'pets'))).permissions);
  const commenters = await rest(c.spaces.listCommentersInSpace(space.id));
  assert.deepEqual(gql.commenters, { count: commenters.count, total: commenters.total });
  // Locations: the same objects (compared by id) in the same order.
  const ids = (l) => l && ({
    kind: l.kind, url: l.url ?? null, organization: l.organization?.id ?? null, space: l.space?.id ?? null,
    spaceType: l.space?.type ?? null, page: l.page?.id ?? null, file: l.file?.id ?? null,
    version: l.versionContext ? [l.versionContext.type, l.versionContext.revision?.id ?? l.versionContext.changeRequest?.id] : null,
  });
  const restLinks = await rest(c.spaces.listSpaceLinks(space.id));
  assert.deepEqual(
    gql.spaceLinks.items.map((u) => [u.status.toLowerCase().replace('_', '-'), ids(u.targetReference), u.locationReferences.map(ids)]),
    restLinks.items.map((u) => [u.status, ids(u.targetReference), u.locationReferences.map(ids)]),
  );
  const restBacklinks = await rest(c.spaces.listChangeRequestFileBacklinks(space.id, cr.id, crFile.id));
  assert.deepEqual(gql.spaceFileBacklinks.items.map(ids), restBacklinks.items.map(ids));
  assert.equal(restBacklinks.items[0].versionContext.type, 'changeRequest');

  // Deletes last, so the objects above stay for reads.
  await orgs.deleteOrganizationSamlProvider(org, saml.id);
  await orgs.removeTeamFromOrganizationById(org, team.id);
  await collections.deleteCollectionById(guides.id);

  const missing = [...operations.values()].filter((id) => !covered.has(id));
  assert.deepEqual(missing, [], `operations never exercised: ${missing.join(', ')}`);
  assert.equal(covered.size, operations.size);
  t.diagnostic(`${covered.size} of ${operations.size} operations exercised; ${validated} answers validated (other operations included)`);
});

test('no body leaves the 0.130.0 schema', () => {
  const excused = (v) => expectedViolations.find((e) => e.operationId === v.operationId && e.instancePath.test(v.instancePath));
  const unexpected = violations.filter((v) => !excused(v));
  const stale = expectedViolations.filter((e) => !violations.some((v) => excused(v) === e));
  // One line per operation, place (item indexes folded) and message.
  const show = (v) => `${v.operationId} ${v.status} ${v.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/'}: ${v.message} (${v.schemaPath})`;
  const lines = [...new Set(unexpected.map(show))];
  // CONTRACT_REPORT=file writes every line and the first failing body of each operation.
  if (process.env.CONTRACT_REPORT) {
    writeFileSync(process.env.CONTRACT_REPORT, JSON.stringify({ lines, bodies: Object.fromEntries(failingBodies) }, null, 1));
  }
  assert.equal(unexpected.length, 0, `${unexpected.length} violations, ${lines.length} distinct:\n${lines.slice(0, 400).join('\n')}`);
  assert.deepEqual(stale.map((e) => `${e.operationId} ${e.schemaPath}`), [], 'expected violations that no longer happen: remove them');
});
