// GraphQL subscriptions with a real client from npm, graphql-ws
// over the `ws` WebSocket, against a real `docsapi serve`: a member
// subscribes to a space's comments, receives the comment the official
// client writes through REST, then loses access (removed from the
// organization) and stops receiving: the next event ends its subscription
// with the 404 the comments query would answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startServer } from './harness.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => {
  await s?.stop();
});

const query = `subscription($space: ID!) { commentUpdated(spaceId: $space) { id body { markdown } postedBy { id } } }`;

function connect(token) {
  let connected;
  const ready = new Promise((resolve) => (connected = resolve));
  const client = createClient({
    url: s.endpoint.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    on: { connected: () => connected() },
  });
  return { client, ready };
}

// next reads the iterator's next result, or fails after ms.
function next(it, ms = 5000) {
  return Promise.race([it.next(), new Promise((_, reject) => setTimeout(() => reject(new Error('no event in time')), ms))]);
}

test('graphql-ws: an event after a REST write, none once access is revoked', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Live' });
  const member = s.newUser('live-member@example.com', 'read');
  const watcher = connect(member.token);
  const admin = connect(s.token);
  const mine = watcher.client.iterate({ query, variables: { space: space.id } });
  const theirs = admin.client.iterate({ query, variables: { space: space.id } });
  try {
    const first = next(mine);
    const adminFirst = next(theirs);
    await Promise.all([watcher.ready, admin.ready]);
    await new Promise((r) => setTimeout(r, 300)); // the subscribe messages reach the server
    const { data: comment } = await s.client.spaces.postCommentInSpace(space.id, { body: { markdown: 'Hello **live**' } });
    const got = await first;
    assert.equal(got.done, false);
    assert.equal(got.value.data.commentUpdated.id, comment.id);
    assert.equal(got.value.data.commentUpdated.postedBy.id, s.user);
    assert.equal((await adminFirst).value.data.commentUpdated.id, comment.id);

    await s.client.orgs.removeMemberFromOrganizationById(s.org, member.user);
    const { data: second } = await s.client.spaces.postCommentInSpace(space.id, { body: { markdown: 'Not for you' } });
    // The admin still hears it; the removed member's subscription ends
    // with an error instead of an event.
    assert.equal((await next(theirs)).value.data.commentUpdated.id, second.id);
    await assert.rejects(next(mine), (errs) => {
      const list = Array.isArray(errs) ? errs : [errs];
      assert.equal(list[0].extensions?.code, 'NOT_FOUND', JSON.stringify(errs));
      return true;
    });
  } finally {
    await mine.return?.();
    await theirs.return?.();
    await watcher.client.dispose();
    await admin.client.dispose();
  }
});

test('graphql-ws: a connection without a valid token is refused', async () => {
  const { client } = connect('not-a-token');
  const it = client.iterate({ query, variables: { space: 'x' } });
  await assert.rejects(next(it));
  await client.dispose();
});
