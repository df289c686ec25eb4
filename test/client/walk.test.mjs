// The contract walk: every operation of @gitbook/api@0.130.0's openapi.json
// is called once on a seeded docsapi (raw fetch, valid path parameters from
// the seed, a body made from the operation's request schema), reads first,
// then writes, then deletes. It fails when an operation answers 404 "no
// route", when a hosted-only operation (described as 501 in docsapi's own
// /v1/openapi.json) does not answer 501 saying it is not available on a
// self-hosted docsapi, when anything answers a 5xx, when a 2xx body does
// not validate against the operation's 0.130.0 response schema
// (contract.mjs), and when an operation is neither walked nor in the skip
// table below.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import lz from 'lz-string';
import { startServer } from './harness.mjs';
import { check, spec } from './contract.mjs';

// Operations the walk does not call, each with its reason. Keep it short:
// an operation belongs here only when no request can reach its route today.
const skip = new Map([
  // (none today: every operation is walked)
]);

const MD = '# Guide\n\nRead the [tour](https://example.com/tour).\n\n![logo](logo.png)\n\n## Setup\n\nCalibrate the hyperdrive.\n';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PETS = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: { '/pets': { get: { summary: 'List pets', responses: { 200: { description: 'ok' } } } } },
});
const files = { '/guide.md': ['text/markdown', MD], '/logo.png': ['image/png', PNG], '/pets.json': ['application/json', PETS] };

let host, origin, s;
before(async () => {
  host = http.createServer((req, res) => {
    const f = files[req.url];
    if (!f) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f[0] }).end(f[1]);
  });
  host.listen(0, '127.0.0.1');
  await once(host, 'listening');
  origin = `http://127.0.0.1:${host.address().port}`;
  s = await startServer();
});
after(async () => {
  await s?.stop();
  host?.close();
});

async function call(method, path, body, token = s.token) {
  const headers = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${s.endpoint}/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json = text === '' ? null : text;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      json = JSON.parse(text);
    } catch {}
  }
  return { status: res.status, body: json };
}

// seed creates one of each resource the paths name, through the API; a
// failed step leaves its parameter unknown (its operations then answer
// 404 for the resource, which the walk accepts).
async function seed() {
  const ids = { organizationId: s.org, emailDomain: 'example.com', hostname: 'docs.example.com', subdomain: 'walk' };
  const org = `/orgs/${s.org}`;
  const step = async (what, fn) => {
    try {
      await fn();
    } catch (err) {
      console.log(`seed: ${what}: ${err.message}`);
    }
  };
  const must = async (method, path, body) => {
    const r = await call(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const member = s.newUser('member@example.com', 'read');
  ids.userId = member.user;
  await step('space and content', async () => {
    ids.spaceId = (await must('POST', `${org}/spaces`, { title: 'Walk' })).id;
    await must('POST', `/spaces/${ids.spaceId}/content/import`, { url: `${origin}/guide.md`, source: 'markdown' });
    const content = await must('GET', `/spaces/${ids.spaceId}/content`);
    ids.revisionId = content.id;
    ids.pageId = content.pages[0]?.id;
    ids.pagePath = content.pages[0]?.path;
    ids.fileId = content.files[0]?.id;
  });
  await step('collection', async () => (ids.collectionId = (await must('POST', `${org}/collections`, { title: 'Shelf' })).id));
  await step('change request', async () => (ids.changeRequestId = (await must('POST', `/spaces/${ids.spaceId}/change-requests`, { subject: 'Edits' })).id));
  await step('comment', async () => {
    ids.commentId = (await must('POST', `/spaces/${ids.spaceId}/comments`, { body: { markdown: 'Hello' }, page: ids.pageId })).id;
    ids.commentReplyId = (await must('POST', `/spaces/${ids.spaceId}/comments/${ids.commentId}/replies`, { body: { markdown: 'Hi' } })).id;
  });
  await step('team', async () => (ids.teamId = (await must('PUT', `${org}/teams`, { title: 'Writers' })).id));
  await step('link invite', async () => (ids.inviteId = (await must('POST', `${org}/link-invites`, { role: 'read' })).id));
  await step('site', async () => {
    ids.siteId = (await must('POST', `${org}/sites`, { title: 'Docs', spaces: [ids.spaceId] })).id;
    const site = `${org}/sites/${ids.siteId}`;
    ids.siteSpaceId = (await must('GET', `${site}/site-spaces`)).items[0]?.id;
    ids.shareLinkId = (await must('POST', `${site}/share-links`, { name: 'Partners' })).id;
    ids.siteRedirectId = (await must('POST', `${site}/redirects`, { source: '/old', destination: { kind: 'site-space', siteSpaceId: ids.siteSpaceId } })).id;
  });
  await step('site sections', async () => {
    const other = (await must('POST', `${org}/spaces`, { title: 'API' })).id;
    const site = (await must('POST', `${org}/sites`, { title: 'Sections', type: 'ultimate', spaces: [] })).id;
    const section = await must('POST', `${org}/sites/${site}/sections`, { spaceId: other, title: 'API' });
    const group = await must('POST', `${org}/sites/${site}/section-groups`, { title: 'Reference', sections: [section.id] });
    ids.sectionSite = site;
    ids.siteSectionId = section.id;
    ids.siteSectionGroupId = group.id;
  });
  await step('openapi spec', async () => {
    ids.specSlug = (await must('POST', `${org}/openapi`, { slug: 'pets', source: { text: PETS } })).slug;
    ids.versionId = (await must('GET', `${org}/openapi/pets/versions`)).items[0]?.id;
  });
  await step('integration', async () => {
    ids.integrationName = 'walk-kit';
    await must('POST', `/integrations/walk-kit`, {
      title: 'Walk kit', description: 'Walks', script: 'export default {}', scopes: ['space:content:read'], organization: s.org,
    });
    ids.installationId = (await must('POST', `/integrations/walk-kit/installations`, { organization: s.org })).id;
    await must('POST', `/integrations/walk-kit/installations/${ids.installationId}/spaces`, { space: ids.spaceId });
    ids.eventId = (await must('GET', `/integrations/walk-kit/events`)).items[0]?.id;
  });
  await step('glossary', async () => {
    await must('PUT', `${org}/translations-glossary`, { operations: [{ type: 'insert', translations: { en: 'hyperdrive', fr: 'hyperpropulseur' } }] });
    ids.glossaryEntryId = (await must('GET', `${org}/translations-glossary`)).items[0]?.id;
  });
  return ids;
}

// bodyFor makes a request body from a schema: the required properties,
// each the first of its enum, a seeded id when its name is one, or a small
// value of its type.
function bodyFor(schema, ids, depth = 0, name = '') {
  const resolve = (x) => (x?.$ref ? resolve(spec.components.schemas[x.$ref.split('/').pop()]) : x);
  schema = resolve(schema);
  if (!schema || depth > 8) return undefined;
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((x) => bodyFor(x, ids, depth + 1, name) ?? {}));
  if (schema.oneOf || schema.anyOf) return bodyFor((schema.oneOf ?? schema.anyOf)[0], ids, depth + 1, name);
  if (schema.enum) return schema.enum[0];
  const seeded = { space: 'spaceId', spaceId: 'spaceId', site: 'siteId', siteId: 'siteId', user: 'userId', userId: 'userId', team: 'teamId',
    collection: 'collectionId', parent: 'collectionId', page: 'pageId', pageId: 'pageId', organization: 'organizationId' }[name];
  switch (schema.type) {
    case 'string':
      if (seeded && ids[seeded]) return ids[seeded];
      if (schema.format === 'uri' || name === 'url') return `${origin}/guide.md`;
      if (schema.format === 'email') return 'walker@example.com';
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.pattern?.startsWith('^#')) return '#346DDB'; // colors
      return 'walk'.padEnd(schema.minLength ?? 0, 'k').slice(0, schema.maxLength ?? 100);
    case 'number':
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => bodyFor(schema.items, ids, depth + 1, name));
    default: {
      const out = {};
      for (const key of schema.required ?? []) out[key] = bodyFor(schema.properties?.[key], ids, depth + 1, key);
      return out;
    }
  }
}

// queryFor gives each required query parameter a value.
function queryFor(op) {
  const q = new URLSearchParams();
  for (const ref of op.parameters ?? []) {
    const p = ref.$ref ? spec.components.parameters[ref.$ref.split('/').pop()] : ref;
    if (p.in !== 'query' || !p.required) continue;
    const value = {
      url: `${origin}/guide.md`,
      query: 'hyperdrive',
      source: '/old',
      request: lz.compressToEncodedURIComponent(JSON.stringify({
        componentId: 'main', props: {}, context: { type: 'configuration_account', theme: 'light', organizationId: s.org },
      })),
    }[p.name] ?? 'walk';
    q.set(p.name, value);
  }
  const str = q.toString();
  return str ? `?${str}` : '';
}

const order = { get: 0, post: 1, put: 1, patch: 1, delete: 2 };

test('every operation of 0.130.0 is routed and answers its schema', { timeout: 300000 }, async () => {
  const ids = await seed();
  const described = await (await fetch(`${s.endpoint}/v1/openapi.json`)).json();
  const hosted = new Set();
  for (const item of Object.values(described.paths)) for (const op of Object.values(item)) if (op?.responses?.['501']) hosted.add(op.operationId);

  const ops = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) if (op?.operationId) ops.push({ path, method, op });
  }
  // Reads, then writes, then deletes, the deepest paths first (a site's
  // share link goes before the site).
  ops.sort((a, b) => order[a.method] - order[b.method] || (a.method === 'delete' ? b.path.split('/').length - a.path.split('/').length : 0));
  assert.equal(ops.length, 302, 'the 0.130.0 package has 302 operations');

  const failures = [];
  const tally = { validated: 0, hosted: 0, refused: 0, skipped: 0 };
  const refused = []; // reached their route, refused the walk's request (shown, not failed)
  for (const { path, method, op } of ops) {
    const id = op.operationId;
    if (skip.has(id)) {
      tally.skipped++;
      continue;
    }
    const url = path.replace(/\{(\w+)\}/g, (_, name) => {
      // Section operations name a site with sections.
      const v = name === 'siteId' && /section/.test(path) ? ids.sectionSite : ids[name];
      return encodeURIComponent(v ?? `walk-unknown-${name}`);
    }) + queryFor(op);
    const schema = op.requestBody?.content?.['application/json']?.schema;
    const body = schema ? bodyFor(schema, ids) : undefined;
    let r;
    try {
      r = await call(method.toUpperCase(), url, body);
    } catch (err) {
      failures.push(`${id} ${method.toUpperCase()} ${url}: ${err.message}`);
      continue;
    }
    const message = r.body?.error?.message ?? '';
    const where = `${id} ${method.toUpperCase()} ${url} -> ${r.status}`;
    if (r.status === 404 && /^no route/.test(message)) {
      failures.push(`${where}: no route`);
    } else if (hosted.has(id)) {
      if (r.status !== 501 || !/not available on a self-hosted docsapi/.test(message)) failures.push(`${where}: hosted-only, want 501 saying so (${message})`);
      tally.hosted++;
    } else if (r.status >= 500) {
      failures.push(`${where}: ${message}`);
    } else if (r.status >= 200 && r.status < 300) {
      const found = check(id, r.status, r.body);
      for (const v of found) failures.push(`${where}: ${v.instancePath || '/'} ${v.message}`);
      tally.validated++;
    } else {
      tally.refused++;
      refused.push(`${id} ${r.status}`);
    }
  }
  console.log(`walk: ${tally.validated} validated 2xx, ${tally.hosted} hosted-only 501, ${tally.refused} refused (4xx), ${tally.skipped} skipped`);
  if (process.env.DOCSAPI_WALK_VERBOSE) console.log(`refused: ${refused.join(', ')}`);
  assert.equal(tally.validated + tally.hosted + tally.refused + tally.skipped, 302, 'every operation walked or skipped');
  assert.ok(skip.size <= 8, 'the skip table stays short');
  assert.deepEqual(failures, []);
});
