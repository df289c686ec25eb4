// The official client against a real `docsapi serve`: import content from a
// local site, read the revision, pages, files, links and backlinks, search,
// and apply a template.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { GitBookAPIError } from '@gitbook/api';
import { startServer } from './harness.mjs';
import { checkComponent } from './contract.mjs';

// A 2×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR4nGP4z8DwHwQZGBgAHPgD/fUA8XMAAAAASUVORK5CYII=', 'base64');

const pages = {
  '/guide.md': ['text/markdown', '# Guide\n\nRead [the tour](site/tour.md) and [a missing page](missing.md).\n\n## Setup\n\nThe hyperdrive needs calibration.\n'],
  '/site/': ['text/html', '<html><head><title>Home</title></head><body><main><h1>Site home</h1><p>Start the <a href="/site/tour">tour</a>.</p><img src="/logo.png" alt="logo"></main></body></html>'],
  '/site/tour': ['text/html', '<html><body><main><h1>Tour</h1><p>Back <a href="/site/">home</a>. Nebula sightseeing.</p></main></body></html>'],
  '/logo.png': ['image/png', PNG],
  '/missing.md': ['text/markdown', '# Missing\n\nNot missing any more.\n'],
};

// flat lists a page tree in order.
const flat = (pages) => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);

let s, site, origin;
before(async () => {
  s = await startServer();
  site = http.createServer((req, res) => {
    const page = pages[req.url];
    if (!page) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': page[0] }).end(page[1]);
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${site.address().port}`;
});
after(async () => {
  site?.close();
  await s?.stop();
});

async function refused(code, fn) {
  await assert.rejects(fn, (err) => {
    assert.ok(err instanceof GitBookAPIError, `not a GitBookAPIError: ${err}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

test('import, read, links, backlinks, files, search, templates', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Content' });

  const { data: imported } = await s.client.spaces.importContent(space.id, { url: `${origin}/site/`, source: 'website' });
  assert.deepEqual(Object.keys(imported).sort(), ['importedResources', 'revision', 'totalResources']);
  assert.equal(imported.importedResources, 3); // two pages and the logo
  const { data: md } = await s.client.spaces.importContent(space.id, { url: `${origin}/guide.md`, source: 'markdown' });
  await refused(400, () => s.client.spaces.importContent(space.id, { url: `${origin}/x.docx`, source: 'docx' }));

  const { data: rev } = await s.client.spaces.getCurrentRevision(space.id);
  assert.equal(rev.object, 'revision');
  assert.equal(rev.id, md.revision);
  assert.deepEqual(rev.parents, [imported.revision]);
  // Website pages nest by URL path: /site/tour under /site/.
  assert.deepEqual(flat(rev.pages).map((p) => p.path), ['site', 'site/tour', 'guide']);
  const { data: sameRev } = await s.client.spaces.getRevisionById(space.id, imported.revision);
  assert.equal(flat(sameRev.pages).length, 2);

  const { data: list } = await s.client.spaces.listPages(space.id);
  const guideId = flat(list.pages).find((p) => p.title === 'Guide').id;
  const tourId = flat(list.pages).find((p) => p.title === 'Tour').id;
  const { data: guide } = await s.client.spaces.getPageById(space.id, guideId, { format: 'markdown' });
  assert.match(guide.markdown, /hyperdrive/);
  const { data: doc } = await s.client.spaces.getPageById(space.id, guideId, { format: 'document' });
  assert.equal(doc.document.object, 'document');
  assert.deepEqual(doc.document.nodes.map((n) => n.type), ['paragraph', 'heading-2', 'paragraph']);
  const { data: byPath } = await s.client.spaces.getPageByPath(space.id, 'site/tour');
  assert.equal(byPath.id, tourId);
  const { data: atRev } = await s.client.spaces.getPageInRevisionById(space.id, imported.revision, tourId);
  assert.equal(atRev.title, 'Tour');

  const { data: files } = await s.client.spaces.listFiles(space.id);
  assert.equal(files.count, 1);
  const [logo] = files.items;
  assert.equal(logo.contentType, 'image/png');
  assert.deepEqual(logo.dimensions, { width: 2, height: 1 });
  const download = await fetch(logo.downloadURL);
  assert.equal(download.status, 200);
  assert.deepEqual(Buffer.from(await download.arrayBuffer()), PNG);
  const { data: one } = await s.client.spaces.getFileById(space.id, logo.id);
  assert.equal(one.name, logo.name);
  const { data: fileBacklinks } = await s.client.spaces.listSpaceFileBacklinks(space.id, logo.id);
  assert.equal(fileBacklinks.items[0].kind, 'page');

  const { data: links } = await s.client.spaces.listSpaceLinks(space.id);
  assert.equal(links.stats.broken.total, 1);
  const { data: broken } = await s.client.spaces.listSpaceLinks(space.id, { status: 'broken' });
  assert.equal(broken.items[0].targetReference.url, 'missing.md');
  const { data: pageLinks } = await s.client.spaces.listPageLinksInSpace(space.id, guideId);
  assert.equal(pageLinks.stats.total, 2);
  const { data: backlinks } = await s.client.spaces.listSpacePageBacklinks(space.id, tourId);
  assert.deepEqual(backlinks.items.map((l) => l.page.id).sort(), [guideId, list.pages.find((p) => p.title === 'Site home').id].sort());

  const { data: found } = await s.client.spaces.searchSpaceContent(space.id, { query: 'hyperdrive' });
  assert.equal(found.items[0].id, guideId);
  assert.equal(found.items[0].sections[0].id, 'setup');
  const { data: orgFound } = await s.client.orgs.searchOrganizationContent(s.org, { query: 'nebula' });
  assert.equal(orgFound.items[0].id, space.id);
  assert.equal(orgFound.items[0].pages[0].id, tourId);

  const applied = await s.client.spaces.applyTemplateToSpace(space.id, { id: 'blank' });
  assert.equal(applied.status, 201);

  // The missing page arrives in a later revision: the guide's link to it
  // becomes ok without the guide changing.
  await s.client.spaces.importContent(space.id, { url: `${origin}/missing.md`, source: 'markdown' });
  const { data: fixed } = await s.client.spaces.listSpaceLinks(space.id);
  assert.equal(fixed.stats.broken.total, 0);

  // Templates take content references and set revision variables.
  await refused(400, () => s.client.spaces.applyTemplateToSpace(space.id, { id: 'getting-started', params: { contentRefs: { nope: { kind: 'url', url: 'https://example.com' } } } }));
  await s.client.spaces.applyTemplateToSpace(space.id, { id: 'getting-started', params: { contentRefs: { logo: { kind: 'file', file: logo.id } } } });
  const { data: intro } = await s.client.spaces.getPageByPath(space.id, 'introduction');
  assert.match(intro.markdown, new RegExp(`^!\\[Logo\\]\\(${logo.name}\\)`));
  const { data: withVars } = await s.client.spaces.getCurrentRevision(space.id);
  assert.deepEqual(withVars.variables, { product: 'Product', version: '1.0' });
  const reader = s.newUser('content-reader@example.com', 'read');
  await refused(403, () => reader.client.spaces.applyTemplateToSpace(space.id, { id: 'blank' }));
  const { data: after } = await reader.client.spaces.listPages(space.id);
  assert.ok(after.pages.some((p) => p.title === 'Untitled'));
});

test('revision urls.published and urls.public follow the published site holding the space', async () => {
  const { client, org } = s;
  const { data: space } = await client.orgs.createSpace(org, { title: 'Published revisions' });
  const { data: site } = await client.orgs.createSite(org, { title: 'Revision site', visibility: 'public', spaces: [space.id] });
  let { data: rev } = await client.spaces.getCurrentRevision(space.id);
  assert.equal(rev.urls.published, undefined);
  assert.equal(rev.urls.public, undefined);
  assert.equal(rev.git, undefined);

  await client.orgs.publishSite(org, site.id);
  await client.spaces.updateSpaceById(space.id, { visibility: 'unlisted' });
  const { data: published } = await client.orgs.getPublishedContentSite(org, site.id);
  const siteSpaceURL = published.structure.structure[0].urls.published;
  ({ data: rev } = await client.spaces.getCurrentRevision(space.id));
  assert.equal(rev.urls.published, `${siteSpaceURL}/~/revisions/${rev.id}`);
  assert.equal(rev.urls.public, undefined);

  await client.spaces.updateSpaceById(space.id, { visibility: 'public' });
  ({ data: rev } = await client.spaces.getCurrentRevision(space.id));
  assert.equal(rev.urls.public, `${siteSpaceURL}/~/revisions/${rev.id}`);
  const { data: byId } = await client.spaces.getRevisionById(space.id, rev.id);
  assert.deepEqual(byId.urls, rev.urls);
});

test('reusable contents: read by id at every level, their body as a document', async () => {
  const { client, org } = s;
  const { data: space } = await client.orgs.createSpace(org, { title: 'Reusable' });
  await client.spaces.applyTemplateToSpace(space.id, { id: 'knowledge-base' });
  const { data: rev } = await client.spaces.getCurrentRevision(space.id);
  assert.equal(rev.reusableContents.length, 1);
  const [rc] = rev.reusableContents;
  assert.deepEqual(Object.keys(rc).sort(), ['document', 'id', 'title']);
  assert.deepEqual(checkComponent('RevisionReusableContent', rc), []);
  const { data: got } = await client.spaces.getReusableContentById(space.id, rc.id);
  assert.deepEqual(got, rc);
  const { data: inRevision } = await client.spaces.getReusableContentInRevisionById(space.id, rev.id, rc.id);
  assert.deepEqual(inRevision, rc);
  const { data: cr } = await client.spaces.createChangeRequest(space.id, { subject: 'Edit contacts' });
  const { data: inCR } = await client.spaces.getReusableContentInChangeRequestById(space.id, cr.id, rc.id);
  assert.deepEqual(inCR, rc);
  await refused(404, () => client.spaces.getReusableContentById(space.id, 'nope'));

  const { data: doc } = await client.spaces.getDocumentById(space.id, rc.document);
  assert.deepEqual(checkComponent('JSONDocument', doc), []);
  assert.equal(doc.object, 'document');
  assert.ok(doc.nodes.some((n) => n.type === 'list-unordered'));
  await refused(404, () => client.spaces.getDocumentById(space.id, 'nope'));
  const stranger = s.newOrg('Reusable stranger', 'reusable-stranger@example.com');
  await refused(404, () => stranger.client.spaces.getDocumentById(space.id, rc.document));
});
