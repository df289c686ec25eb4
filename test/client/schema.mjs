// A small JSON Schema check against the official client's own OpenAPI
// description (0.130.0): type, required, properties, additionalProperties,
// enum, pattern, minLength/maxLength, items, $ref, allOf, oneOf/anyOf,
// nullable. Enough to say whether an answer has the shape the client
// declares; formats are not checked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const spec = JSON.parse(readFileSync(join(import.meta.dirname, 'node_modules', '@gitbook', 'api', 'spec', 'openapi.json'), 'utf8'));

function resolve(schema) {
  while (schema?.$ref) schema = spec.components.schemas[schema.$ref.split('/').pop()];
  return schema ?? {};
}

/** The ways value breaks the named schema of components.schemas ([] when it conforms). */
export function schemaErrors(value, name) {
  return check(value, { $ref: `#/components/schemas/${name}` }, name);
}

function check(value, raw, at) {
  const schema = resolve(raw);
  const errs = [];
  if (value === null) return schema.nullable || (schema.enum ?? []).includes(null) ? [] : [`${at}: null`];
  for (const part of schema.allOf ?? []) errs.push(...check(value, part, at));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives && !alternatives.some((alt) => check(value, alt, at).length === 0)) {
    errs.push(`${at}: matches none of ${alternatives.length} alternatives`);
  }
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  const actual = Array.isArray(value) ? 'array' : Number.isInteger(value) && type === 'integer' ? 'integer' : typeof value;
  if (type && type !== actual && !(type === 'number' && actual === 'number')) return [...errs, `${at}: ${actual}, want ${type}`];
  if (schema.enum && !schema.enum.includes(value)) errs.push(`${at}: ${JSON.stringify(value)} not in ${schema.enum.join('|')}`);
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) errs.push(`${at}: ${value} does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && value.length < schema.minLength) errs.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) errs.push(`${at}: longer than ${schema.maxLength}`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errs.push(...check(v, schema.items, `${at}[${i}]`)));
  if (actual === 'object') {
    for (const key of schema.required ?? []) if (!(key in value)) errs.push(`${at}: lacks ${key}`);
    for (const [key, v] of Object.entries(value)) {
      if (schema.properties?.[key]) errs.push(...check(v, schema.properties[key], `${at}.${key}`));
      else if (schema.additionalProperties === false && !schema.allOf) errs.push(`${at}: unexpected ${key}`);
      else if (typeof schema.additionalProperties === 'object') errs.push(...check(v, schema.additionalProperties, `${at}.${key}`));
    }
  }
  return errs;
}
