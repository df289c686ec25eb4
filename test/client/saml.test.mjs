// SSO through the official client: SAML providers managed by an admin, and
// the login information any signed-in caller may read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, IDP_CERT as CERT } from './harness.mjs';


let srv;
before(async () => {
  srv = await startServer();
});
after(async () => {
  await srv?.stop();
});

async function refused(promise, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.name, 'GitBookAPIError');
    assert.equal(err.code, code, err.message);
    return true;
  });
}

test('an admin manages SAML providers; logins list the active ones', async () => {
  const { client, org } = srv;
  const team = (await client.orgs.createOrganizationTeam(org, { title: 'Engineering' })).data;

  const created = await client.orgs.createOrganizationSamlProvider(org, { label: 'Okta' });
  assert.equal(created.status, 201);
  const p = created.data;
  assert.equal(p.object, 'saml-provider');
  assert.equal(p.status, 'pending');
  assert.equal(created.headers.get('location'), p.urls.location);
  assert.equal(p.service.startURL, `${srv.endpoint}/sso/saml/${p.id}/start`);
  assert.equal(p.service.acsURL, `${srv.endpoint}/sso/saml/${p.id}/acs`);

  // Nothing is listed for login until the provider is configured.
  assert.deepEqual((await client.orgs.listSsoProviderLoginsInOrganization(org)).data, { items: [] });

  const updated = (
    await client.orgs.updateOrganizationSamlProvider(org, p.id, {
      entityID: 'https://idp.example.com/metadata',
      ssoURL: 'https://idp.example.com/sso',
      certificate: CERT,
      defaultTeam: team.id,
      defaultRole: 'edit',
    })
  ).data;
  assert.equal(updated.status, 'active');
  assert.equal(updated.defaultTeam.id, team.id);
  assert.equal(updated.defaultRole, 'edit');

  const got = (await client.orgs.getOrganizationSamlProviderById(org, p.id)).data;
  assert.deepEqual(got, updated);
  const list = (await client.orgs.listSamlProvidersInOrganizationById(org)).data;
  assert.equal(list.count, 1);
  assert.equal(list.items[0].id, p.id);

  // Login information: readable by someone who is not a member, and nothing else.
  const stranger = srv.newOrg('Elsewhere', 'someone@elsewhere.test');
  const logins = (await stranger.client.orgs.listSsoProviderLoginsInOrganization(org)).data;
  assert.deepEqual(logins, { items: [{ id: p.id, label: 'Okta', startURL: p.service.startURL }] });
  await refused(stranger.client.orgs.getOrganizationSamlProviderById(org, p.id), 404);

  // The start URL sends the browser to the identity provider with a signed request.
  const start = await fetch(p.service.startURL, { redirect: 'manual' });
  assert.equal(start.status, 302);
  const to = new URL(start.headers.get('location'));
  assert.equal(to.origin + to.pathname, 'https://idp.example.com/sso');
  assert.ok(to.searchParams.get('SAMLRequest'));
  assert.ok(to.searchParams.get('Signature'));

  assert.equal((await client.orgs.deleteOrganizationSamlProvider(org, p.id)).status, 205);
  assert.equal((await client.orgs.deleteOrganizationSamlProvider(org, p.id)).status, 204);
  await refused(client.orgs.getOrganizationSamlProviderById(org, p.id), 404);
});

test('providers are validated and reserved to admins', async () => {
  const { client, org } = srv;
  await refused(client.orgs.createOrganizationSamlProvider(org, { label: '' }), 400);
  await refused(client.orgs.createOrganizationSamlProvider(org, { label: 'x'.repeat(31) }), 400);
  await refused(client.orgs.createOrganizationSamlProvider(org, { label: 'Bad', certificate: 'not a certificate' }), 400);
  await refused(client.orgs.createOrganizationSamlProvider(org, { label: 'Bad', ssoURL: 'not a url' }), 400);
  await refused(client.orgs.createOrganizationSamlProvider(org, { label: 'Bad', defaultTeam: 'nosuchteam' }), 400);
  try {
    await client.orgs.createOrganizationSamlProvider(org, { label: 'Bad', certificate: CERT.replace('MII', 'XXX') });
    assert.fail('a corrupted certificate was accepted');
  } catch (err) {
    assert.equal(err.code, 400);
    assert.match(err.errorMessage, /^certificate: /);
  }

  const editor = srv.newUser('editor@example.com', 'create');
  await refused(editor.client.orgs.createOrganizationSamlProvider(org, { label: 'Mine' }), 403);
  await refused(editor.client.orgs.listSamlProvidersInOrganizationById(org), 403);
  // Members of any role read the login information.
  assert.deepEqual((await editor.client.orgs.listSsoProviderLoginsInOrganization(org)).data, { items: [] });
});

test('a certificate given as bare base64 DER (as in IdP metadata) is accepted and stored as PEM', async () => {
  const { client, org } = srv;
  // The X509Certificate element of metadata XML: the PEM body, no armour, indented.
  const der = CERT.split('\n').filter((l) => l && !l.startsWith('-----')).map((l) => `      ${l}`).join('\n');
  const { data: p } = await client.orgs.createOrganizationSamlProvider(org, {
    label: 'From metadata',
    entityID: 'https://idp.example.com/der',
    ssoURL: 'https://idp.example.com/der/sso',
    certificate: `\n${der}\n    `,
  });
  assert.equal(p.status, 'active');
  assert.equal(p.certificate, CERT);
  const oneLine = der.replace(/\s+/g, '');
  const { data: patched } = await client.orgs.updateOrganizationSamlProvider(org, p.id, { certificate: oneLine });
  assert.equal(patched.certificate, CERT);
  await refused(client.orgs.updateOrganizationSamlProvider(org, p.id, { certificate: oneLine.slice(0, 40) }), 400);
  assert.equal((await client.orgs.deleteOrganizationSamlProvider(org, p.id)).status, 205);
});
