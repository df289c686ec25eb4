// The 0.130.0 contract: every 2xx body the official client receives is
// validated against the response schema in the installed
// @gitbook/api@0.130.0 package (spec/openapi.json), with ajv.
//
// The OpenAPI 3.0 document is translated to JSON Schema once: `nullable:
// true` becomes a union with null, `discriminator` is dropped (the `oneOf`
// it annotates is still checked as written: exactly one variant must
// match), and the component $refs resolve inside the same document. No
// required field is relaxed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

// The installed package (its exports map hides package.json and spec/).
const pkgDir = join(import.meta.dirname, 'node_modules', '@gitbook', 'api');
export const spec = JSON.parse(readFileSync(join(pkgDir, 'spec', 'openapi.json'), 'utf8'));
export const pkgVersion = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;

/**
 * The 147 operations the specification lists (operations.json, taken from
 * the operation reference), then those a docs renderer calls (issue 27,
 * marked "issue": 27): clientMethod -> operationId.
 */
export const operations = new Map(
  JSON.parse(readFileSync(join(import.meta.dirname, 'operations.json'), 'utf8')).map((r) => [r.clientMethod, r.operationId]),
);

// toJSONSchema translates OpenAPI 3.0 keywords ajv does not know.
function toJSONSchema(node) {
  if (Array.isArray(node)) return node.map(toJSONSchema);
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'discriminator' || k === 'nullable' || k === 'example' || k.startsWith('x-')) continue;
    out[k] = toJSONSchema(v);
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string' && !out.$ref && !out.oneOf && !out.anyOf && !out.allOf) {
      out.type = [out.type, 'null'];
      if (out.enum) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

// Where the schema as written cannot be met, the reading is named here and
// nowhere else (README "0.130.0 contract test" lists the same two):
// 1. #6 getOrganizationsForEmailDomain requires `organizaitons` (a typo)
//    while defining `organizations`, the name the specification uses: the
//    required entry is read as `organizations`.
// 2. RevisionPageDocument is allOf [RevisionPageBase, Document, ...] and
//    Document's third variant "Empty" is `{}` with additionalProperties
//    false, which no page object (it has an id) can meet; a page without a
//    body (page lists, revisions) would then have to carry one. Inside that
//    allOf only, "Empty" is read as "neither markdown nor document"; the
//    oneOf stays exactly-one.
// 3. PlainObject (ContentKit props) has properties but no `type`, so every
//    string, number or boolean value matches both PlainObject and its own
//    type in the values' oneOf: it is read as `type: object`, as OpenAPI
//    tools read a schema with properties.
function applySpecReadings(doc) {
  const domain = doc.paths['/email-domains/{emailDomain}/orgs'].get.responses['200'].content['application/json'].schema;
  domain.required = domain.required.map((f) => (f === 'organizaitons' ? 'organizations' : f));
  const schemas = doc.components.schemas;
  const [markdown, json, empty] = schemas.Document.oneOf;
  if (empty.additionalProperties !== false || Object.keys(empty.properties).length !== 0) throw new Error('Document.oneOf[2] is no longer the empty variant');
  schemas.DocumentInPage = { oneOf: [markdown, json, { type: 'object', not: { anyOf: [{ required: ['markdown'] }, { required: ['document'] }] } }] };
  const part = schemas.RevisionPageDocument.allOf.find((x) => x.$ref === '#/components/schemas/Document');
  part.$ref = '#/components/schemas/DocumentInPage';
  if (schemas.PlainObject.type !== undefined) throw new Error('PlainObject now has a type: drop reading 3');
  schemas.PlainObject.type = 'object';
  return doc;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, verbose: true });
addFormats(ajv);
// 0.130.0 names two formats of its own: an emoji (a short string of emoji
// characters) and an icon (a free icon name, at most 50 characters).
ajv.addFormat('emoji', { type: 'string', validate: (s) => s.length === 0 || /^\p{Extended_Pictographic}|^\p{Regional_Indicator}|^[\u{1F3FB}-\u{1F3FF}]|^[#*0-9]\uFE0F?\u20E3/u.test(s) });
ajv.addFormat('icon', { type: 'string', validate: (s) => /^[a-z0-9-]+$/.test(s) });
ajv.addSchema({ ...applySpecReadings(toJSONSchema({ components: spec.components, paths: spec.paths })), $id: 'openapi.json' });

const byOperationId = new Map();
for (const [path, item] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (op && op.operationId) byOperationId.set(op.operationId, { path, method, op });
  }
}

const pointer = (s) => s.replaceAll('~', '~0').replaceAll('/', '~1');
const compiled = new Map();

// responseValidator returns the validator of one operation's status, null
// when the status declares no body, or undefined when it is not declared.
function responseValidator(operationId, status) {
  const key = `${operationId} ${status}`;
  if (compiled.has(key)) return compiled.get(key);
  const found = byOperationId.get(operationId);
  if (!found) throw new Error(`operation ${operationId} is not in @gitbook/api@${pkgVersion}`);
  let response = found.op.responses?.[String(status)];
  let v;
  if (!response) v = undefined;
  else {
    if (response.$ref) response = spec.components.responses[response.$ref.split('/').pop()];
    const schema = response.content?.['application/json']?.schema;
    v = schema
      ? ajv.compile({ $ref: `openapi.json#/paths/${pointer(found.path)}/${found.method}/responses/${status}/content/application~1json/schema` })
      : null;
  }
  compiled.set(key, v);
  return v;
}

/**
 * check(operationId, status, body) -> list of violations
 * ({operationId, status, instancePath, schemaPath, message}).
 */
export function check(operationId, status, body) {
  const v = responseValidator(operationId, status);
  if (v === undefined) return [{ operationId, status, instancePath: '', schemaPath: 'responses', message: `status ${status} is not declared` }];
  if (v === null) {
    const empty = body === null || body === undefined || body === '';
    return empty ? [] : [{ operationId, status, instancePath: '', schemaPath: 'responses', message: 'a body where none is declared' }];
  }
  if (v(body)) return [];
  return narrow(v.errors, body).map((e) => ({
    operationId,
    status,
    instancePath: e.instancePath,
    schemaPath: e.schemaPath,
    message: `${e.message}${e.params && Object.keys(e.params).length ? ' ' + JSON.stringify(e.params) : ''}`,
  }));
}

// narrow makes a failure readable; it never decides one. ajv reports the
// errors of every variant of a oneOf that no variant meets: they are
// replaced by those of the closest variant (the fewest errors, narrowed the
// same way; a variant whose kind, type or object differs is never closest),
// with a line naming it. Falls back to all errors.
function narrow(errors, data) {
  const failed = errors.filter((e) => e.keyword === 'oneOf' && e.params.passingSchemas == null);
  if (failed.length === 0) return errors;
  const paths = [...new Set(failed.map((e) => e.instancePath))].sort((a, b) => a.length - b.length)
    .filter((p, i, all) => !all.slice(0, i).some((q) => p.startsWith(q + '/')));
  const under = (e, p) => e.instancePath === p || e.instancePath.startsWith(p + '/');
  const out = errors.filter((e) => !paths.some((p) => under(e, p)));
  for (const p of paths) {
    const value = p.split('/').slice(1).reduce((v, k) => v?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], data);
    for (const f of failed.filter((e) => e.instancePath === p)) {
      let best;
      f.schema.forEach((variant, i) => {
        const v = variantValidator(variant);
        if (v(value)) return;
        const errs = narrow(v.errors, value);
        // A variant whose kind, type or object the value does not have is
        // the wrong one, whatever its error count.
        const score = errs.length + (errs.some((e) => e.keyword === 'enum' && /^\/(kind|type|object)$/.test(e.instancePath)) ? 1000 : 0);
        if (!best || score < best.score) best = { i, errs, variant, score };
      });
      if (!best) continue;
      const name = best.variant.$ref?.split('/').pop() ?? `variant ${best.i}`;
      out.push({ ...f, message: `matches no variant of oneOf; closest: ${name}`, params: {} });
      out.push(...best.errs.map((e) => ({ ...e, instancePath: p + e.instancePath })));
    }
  }
  return out.length ? out : errors;
}

const variantValidators = new Map();
function variantValidator(variant) {
  const key = JSON.stringify(variant);
  if (!variantValidators.has(key)) variantValidators.set(key, ajv.compile(anchored(variant)));
  return variantValidators.get(key);
}

// anchored rewrites a schema's local $refs to point into openapi.json.
function anchored(s) {
  if (Array.isArray(s)) return s.map(anchored);
  if (!s || typeof s !== 'object') return s;
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === '$ref' && v.startsWith('#') ? `openapi.json${v}` : anchored(v)]));
}

/** checkComponent(name, value) -> ajv errors against one component schema (for diagnosis). */
export function checkComponent(name, value) {
  const v = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
  return v(value) ? [] : v.errors.map((e) => `${e.instancePath || '/'}: ${e.message} ${JSON.stringify(e.params)} (${e.schemaPath})`);
}
