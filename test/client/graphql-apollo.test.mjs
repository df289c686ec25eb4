// Apollo Client (the front-end client most apps use) against a real
// `docsapi serve`: InMemoryCache normalizes a docs page view through the
// graph's edges (every object stored once under __typename:id, objects
// linked by reference) and a refetch updates the one stored object; an
// Automatic Persisted Queries round trip through Apollo's persisted-query
// link; and a --graphql-persisted-only server running only its registered
// documents.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, InMemoryCache, HttpLink, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { print } from 'graphql';
import { startServer } from './harness.mjs';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

let s;
let f;
before(async () => {
  s = await startServer();
  f = await fixture(s);
});
after(async () => {
  await s?.stop();
});

async function call(method, path, body) {
  const res = await fetch(s.endpoint + path, {
    method,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

// A space two collections deep with three pages and three comments, each
// with a reaction.
async function fixture(s) {
  const outer = await call('POST', `/v1/orgs/${s.org}/collections`, { title: 'Guides' });
  const inner = await call('POST', `/v1/orgs/${s.org}/collections`, { title: 'Product', parent: outer.id });
  const space = await call('POST', `/v1/orgs/${s.org}/spaces`, { title: 'Docs', parent: inner.id });
  const pages = [];
  for (const title of ['Intro', 'Setup', 'Usage']) {
    const r = await call('POST', '/graphql', {
      query: `mutation($t: ContentTarget!, $title: String!) { createPage(target: $t, input: {title: $title, markdown: "# Hello\\n\\nSome text."}) { page { id } } }`,
      variables: { t: { space: space.id }, title },
    });
    assert.equal(r.errors, undefined, JSON.stringify(r.errors));
    pages.push(r.data.createPage.page.id);
  }
  for (let i = 0; i < 3; i++) {
    const c = await call('POST', `/v1/spaces/${space.id}/comments`, { body: { markdown: `Comment ${i}` }, page: pages[0] });
    await call('PUT', `/v1/spaces/${space.id}/comments/${c.id}`, { addedReactions: ['1f44d'] });
    await call('POST', `/v1/spaces/${space.id}/comments/${c.id}/replies`, { body: { markdown: `Reply to ${i}` } });
  }
  return { outer: outer.id, inner: inner.id, space: space.id, pages };
}

const PAGE_VIEW = gql`
  query PageView($space: ID!, $page: ID!) {
    space(spaceId: $space) {
      id
      title
      org { id title }
      collectionPath { id title }
      activeRevision {
        id
        pages { id title path }
        page(pageId: $page, format: DOCUMENT) { id title document }
      }
      commentList(limit: 50) {
        count
        items {
          id
          body { markdown }
          postedBy { id displayName }
          reactions { emoji count users { user { id displayName } } }
          replyList(limit: 5) { count items { id postedBy { id displayName } } }
        }
      }
    }
  }
`;

/** An Apollo client on the server at endpoint; sent records each request body. */
function apollo(endpoint, { persisted = false, sent = [] } = {}) {
  const http = new HttpLink({
    uri: `${endpoint}/graphql`,
    headers: { authorization: `Bearer ${s.token}` },
    fetch: (url, init) => {
      sent.push(JSON.parse(init.body));
      return fetch(url, init);
    },
  });
  const link = persisted ? new PersistedQueryLink({ sha256 }).concat(http) : http;
  return new ApolloClient({ link, cache: new InMemoryCache() });
}

test('InMemoryCache normalizes a page view and a refetch updates the stored objects', async () => {
  const client = apollo(s.endpoint);
  const { data } = await client.query({ query: PAGE_VIEW, variables: { space: f.space, page: f.pages[1] } });
  assert.equal(data.space.title, 'Docs');
  assert.deepEqual(data.space.collectionPath.map((c) => c.id), [f.outer, f.inner]);
  assert.equal(data.space.activeRevision.page.id, f.pages[1]);
  assert.ok(data.space.activeRevision.page.document, 'the page document');
  assert.equal(data.space.commentList.items.length, 3);
  for (const c of data.space.commentList.items) {
    assert.equal(c.replyList.count, 1);
    assert.equal(c.reactions[0].users[0].user.id, s.user);
  }

  // Every object with an id is stored once, under __typename:id, and
  // referenced from where the query reached it.
  const stored = client.cache.extract();
  const space = stored[`Space:${f.space}`];
  assert.ok(space, `Space:${f.space} in ${Object.keys(stored)}`);
  assert.deepEqual(space.org, { __ref: `Organization:${s.org}` });
  assert.deepEqual(space.collectionPath, [{ __ref: `Collection:${f.outer}` }, { __ref: `Collection:${f.inner}` }]);
  assert.ok(stored[`Organization:${s.org}`].title);
  assert.ok(stored[`User:${s.user}`], 'the author stored once');
  const commentRefs = Object.keys(stored).filter((k) => k.startsWith('Comment:'));
  const replyRefs = Object.keys(stored).filter((k) => k.startsWith('CommentReply:'));
  assert.equal(commentRefs.length, 3);
  assert.equal(replyRefs.length, 3);
  for (const id of f.pages) assert.ok(stored[`RevisionPage:${id}`], `RevisionPage:${id}`);

  // A change made elsewhere (REST), then a refetch: the one stored Space
  // and Collection change, and every query reading them sees it.
  await call('PATCH', `/v1/spaces/${f.space}`, { title: 'Handbook' });
  await call('PATCH', `/v1/collections/${f.inner}`, { title: 'Platform' });
  const seen = [];
  const watch = client.watchQuery({ query: PAGE_VIEW, variables: { space: f.space, page: f.pages[1] }, fetchPolicy: 'cache-only' })
    .subscribe(({ data }) => data && seen.push(data.space.collectionPath[1].title));
  await client.query({ query: PAGE_VIEW, variables: { space: f.space, page: f.pages[1] }, fetchPolicy: 'network-only' });
  await new Promise((r) => setTimeout(r, 100)); // watchers are told after the write to the cache
  watch.unsubscribe();
  assert.deepEqual(seen.at(-1), 'Platform', `a watcher of the cache sees the refetch: ${seen}`);
  const again = await client.query({ query: PAGE_VIEW, variables: { space: f.space, page: f.pages[1] }, fetchPolicy: 'cache-only' });
  assert.equal(again.data.space.title, 'Handbook');
  const inner = client.cache.readFragment({ id: `Collection:${f.inner}`, fragment: gql`fragment C on Collection { title }` });
  assert.equal(inner.title, 'Platform');
  const other = await client.query({
    query: gql`query Spaces($org: ID!) { organization(id: $org) { id spaces { items { id title } } } }`,
    variables: { org: s.org },
  });
  assert.equal(other.data.organization.spaces.items.find((it) => it.id === f.space).title, 'Handbook');
  assert.equal(Object.keys(client.cache.extract()).filter((k) => k === `Space:${f.space}`).length, 1);
});

test('APQ round trip through the persisted-query link', async () => {
  const query = gql`query Org($org: ID!) { organization(id: $org) { id title spaces(limit: 5) { count } } }`;
  const text = print(query);
  const first = [];
  const a = apollo(s.endpoint, { persisted: true, sent: first });
  const r1 = await a.query({ query, variables: { org: s.org } });
  assert.equal(r1.data.organization.id, s.org);
  // The hash alone, refused as unknown, then hash and text.
  assert.equal(first.length, 2, JSON.stringify(first));
  assert.equal(first[0].query, undefined);
  assert.equal(first[0].extensions.persistedQuery.sha256Hash, sha256(first[1].query));
  assert.equal(first[1].query.replace(/\s+/g, ' '), first[1].query.replace(/\s+/g, ' '));

  // A second client (another browser): the hash alone is enough now.
  const second = [];
  const b = apollo(s.endpoint, { persisted: true, sent: second });
  const r2 = await b.query({ query, variables: { org: s.org } });
  assert.deepEqual(r2.data, r1.data);
  assert.equal(second.length, 1);
  assert.equal(second[0].query, undefined);
  assert.ok(text.includes('organization'));
});

test('--graphql-persisted-only runs the registered documents only', async () => {
  const registered = gql`query Viewer { viewer { id displayName } }`;
  // Apollo adds __typename to selections before sending: register the
  // document as the client sends it (what a build step's manifest holds).
  const sent = [];
  await apollo(s.endpoint, { sent }).query({ query: registered });
  const body = sent[0].query;
  const dir = mkdtempSync(join(tmpdir(), 'docsapi-pq-'));
  const manifest = join(dir, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: [{ id: sha256(body), name: 'Viewer', type: 'query', body }],
  }));
  const locked = await startServer(['--graphql-persisted-queries', manifest, '--graphql-persisted-only']);
  try {
    const requests = [];
    const client = new ApolloClient({
      link: new PersistedQueryLink({ sha256 }).concat(new HttpLink({
        uri: `${locked.endpoint}/graphql`,
        headers: { authorization: `Bearer ${locked.token}` },
        fetch: (url, init) => { requests.push(JSON.parse(init.body)); return fetch(url, init); },
      })),
      cache: new InMemoryCache(),
    });
    const { data } = await client.query({ query: registered });
    assert.equal(data.viewer.id, locked.user);
    assert.equal(requests.length, 1, 'the registered hash alone');
    assert.equal(requests[0].query, undefined);
    await assert.rejects(
      client.query({ query: gql`query Other { viewer { id } }`, fetchPolicy: 'network-only' }),
      (err) => /registered GraphQL documents only/.test(err.message),
    );
  } finally {
    await locked.stop();
  }
});
