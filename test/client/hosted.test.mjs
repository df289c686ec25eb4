// The operations of @gitbook/api@0.130.0 that only GitBook's hosted service
// provides (AI agents and answers, conversation analytics, ads, custom
// hostnames, subdomains, MCP servers) answer 501 with an error body saying
// so, through the official client's own methods: never "no route".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';
import { spec } from './contract.mjs';

let s;
let site;
before(async () => {
  s = await startServer();
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Docs' });
  ({ data: site } = await s.client.orgs.createSite(s.org, { title: 'Docs', spaces: [space.id] }));
});
after(async () => s?.stop());

// hostedCalls are [operationId, call(client)] for every hosted-only operation.
function hostedCalls() {
  const o = s.org;
  const st = site.id;
  return [
    ['listAgentTasks', (c) => c.orgs.listAgentTasks(o)],
    ['getAgentTask', (c) => c.orgs.getAgentTask(o, 't1')],
    ['updateAgentTask', (c) => c.orgs.updateAgentTask(o, 't1', {})],
    ['getAgentSetupState', (c) => c.orgs.getAgentSetupState(o)],
    ['listConversationsIssuesClusters', (c) => c.orgs.listConversationsIssuesClusters(o)],
    ['getConversationsIssuesCluster', (c) => c.orgs.getConversationsIssuesCluster(o, 'c1')],
    ['listConversationsIssuesInCluster', (c) => c.orgs.listConversationsIssuesInCluster(o, 'c1')],
    ['ingestConversation', (c) => c.orgs.ingestConversation(o, {})],
    ['askInOrganization', (c) => c.orgs.askInOrganization(o, { query: 'what?' })],
    ['streamAskInOrganization', (c) => c.orgs.streamAskInOrganization(o, { query: 'what?' })],
    ['getRecommendedQuestionsInOrganization', (c) => c.orgs.getRecommendedQuestionsInOrganization(o)],
    ['streamRecommendedQuestionsInOrganization', (c) => c.orgs.streamRecommendedQuestionsInOrganization(o)],
    ['streamAskInSite', (c) => c.orgs.streamAskInSite(o, st, { question: 'what?' })],
    ['streamRecommendedQuestionsInSite', (c) => c.orgs.streamRecommendedQuestionsInSite(o, st)],
    ['streamAIResponseInSite', (c) => c.request({ path: `/orgs/${o}/sites/${st}/ai/response`, method: 'POST', body: {}, secure: true, type: 'application/json' })],
    ['streamExistingAIResponseInSite', (c) => c.request({ path: `/orgs/${o}/sites/${st}/ai/response/r1`, method: 'GET', secure: true })],
    ['listSiteMcpServers', (c) => c.orgs.listSiteMcpServers(o, st)],
    ['createSiteMcpServer', (c) => c.orgs.createSiteMcpServer(o, st, {})],
    ['getSiteMcpServerById', (c) => c.orgs.getSiteMcpServerById(o, st, 'm1')],
    ['updateSiteMcpServerById', (c) => c.orgs.updateSiteMcpServerById(o, st, 'm1', {})],
    ['deleteSiteMcpServerById', (c) => c.orgs.deleteSiteMcpServerById(o, st, 'm1')],
    ['updateSiteAdsById', (c) => c.orgs.updateSiteAdsById(o, st, {})],
    ['adsListSites', (c) => c.ads.adsListSites()],
    ['adsUpdateSite', (c) => c.ads.adsUpdateSite(st, {})],
    ['getCustomHostname', (c) => c.customHostnames.getCustomHostname('docs.example.com')],
    ['dnsRevalidateCustomHostname', (c) => c.customHostnames.dnsRevalidateCustomHostname('docs.example.com')],
    ['removeCustomHostname', (c) => c.customHostnames.removeCustomHostname('docs.example.com')],
    ['getSubdomain', (c) => c.subdomains.getSubdomain('acme')],
  ];
}

test('every hosted-only operation answers 501 saying why', async () => {
  for (const [id, call] of hostedCalls()) {
    // The stream* methods answer an event iterator: reading it is the call.
    const answer = call(s.client);
    const settled = typeof answer?.then === 'function' ? answer : (async () => { for await (const _ of answer); })();
    await assert.rejects(settled, (err) => {
      assert.equal(err.code, 501, `${id}: ${err.message}`);
      assert.match(err.errorMessage, /not available on a self-hosted docsapi/, id);
      return true;
    }, id);
  }
});

test('the hosted-only operations are described in /v1/openapi.json as 501', async () => {
  const doc = await (await fetch(`${s.endpoint}/v1/openapi.json`)).json();
  const described = new Map();
  for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) if (op?.operationId) described.set(op.operationId, op);
  const published = new Set(Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op?.operationId).filter(Boolean)));
  for (const [id] of hostedCalls()) {
    assert.ok(published.has(id), `${id} is not an operation of 0.130.0`);
    assert.ok(described.get(id)?.responses?.['501'], `${id} is not described as a 501`);
  }
});

test('another organization cannot probe a site through them', async () => {
  const other = s.newOrg('Other', 'other@example.com');
  await assert.rejects(other.client.orgs.listSiteMcpServers(s.org, site.id), (err) => err.code === 404);
  await assert.rejects(other.client.orgs.listAgentTasks(s.org), (err) => err.code === 404);
});
