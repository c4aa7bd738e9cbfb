// Validates replies against the served /openapi.json: the contract test uses it for every
// operation, and ApiClient's typed methods for every success reply of the specs that use it,
// so the document cannot drift from what the service answers.
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TestApp } from './test-app';

export type JsonSchema = { [keyword: string]: unknown };
interface DocumentedResponse {
  content?: Record<string, { schema?: JsonSchema }>;
}
export interface Operation {
  responses: Record<string, DocumentedResponse>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

const MAX_SCHEMA_DEPTH = 32;

/**
 * An OpenAPI 3.0 response schema as a strict JSON schema: `$ref`s inlined, `nullable` as "or
 * null", and every object with properties closed and its properties required unless the
 * document lists which are (`required`).
 */
export function strictSchema(schema: JsonSchema, components: Record<string, JsonSchema>, depth = 0): JsonSchema {
  if (depth > MAX_SCHEMA_DEPTH) throw new Error('schema nests too deep (a recursive $ref?)');
  const next = (inner: unknown): JsonSchema => strictSchema(inner as JsonSchema, components, depth + 1);
  if (typeof schema.$ref === 'string') {
    const target = components[schema.$ref.replace('#/components/schemas/', '')];
    if (!target) throw new Error(`unresolved ${schema.$ref}`);
    return next(target);
  }
  const { nullable, ...rest } = schema;
  const out: JsonSchema = { ...rest };
  if (rest.properties) {
    const properties = rest.properties as Record<string, JsonSchema>;
    out.properties = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, next(property)]));
    out.additionalProperties = rest.additionalProperties ?? false;
    out.required = (rest.required as string[] | undefined) ?? Object.keys(properties);
  }
  if (rest.items) out.items = next(rest.items);
  if (rest.additionalProperties && typeof rest.additionalProperties === 'object')
    out.additionalProperties = next(rest.additionalProperties);
  for (const combinator of ['allOf', 'anyOf', 'oneOf']) {
    if (Array.isArray(rest[combinator])) out[combinator] = (rest[combinator] as unknown[]).map(next);
  }
  return nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

/** Validators per operation and status, over one served document. */
export class ReplyValidator {
  readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
  }

  static async load(t: TestApp): Promise<ReplyValidator> {
    const served = await t.http.get('/openapi.json');
    if (served.status !== 200) throw new Error(`GET /openapi.json answered HTTP ${served.status}`);
    return new ReplyValidator(served.body as OpenApiDocument);
  }

  /** The documented operation of a method and a concrete path (path parameters matched), or null. */
  operationOf(method: string, path: string): { key: string; operation: Operation } | null {
    const bare = path.split('?')[0];
    for (const [template, methods] of Object.entries(this.document.paths)) {
      const operation = methods[method.toLowerCase()];
      if (!operation) continue;
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (pattern.test(bare)) return { key: `${method.toUpperCase()} ${template}`, operation };
    }
    return null;
  }

  validatorFor(key: string, status: string, schema: JsonSchema): ValidateFunction {
    const id = `${key} ${status}`;
    let validator = this.validators.get(id);
    if (!validator) {
      validator = this.ajv.compile(strictSchema(schema, this.document.components.schemas));
      this.validators.set(id, validator);
    }
    return validator;
  }

  /** Throws unless `body` matches the JSON reply documented for `key` at `status`. */
  assertMatches(key: string, operation: Operation, status: number, body: unknown): void {
    const documented = operation.responses[String(status)] ?? (status >= 500 ? operation.responses['200'] : undefined);
    if (!documented) throw new Error(`${key} answered HTTP ${status}, which the document does not list`);
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${key}: HTTP ${status} documents no JSON reply`);
    const validate = this.validatorFor(key, String(status), schema);
    if (!validate(body)) {
      throw new Error(
        `${key} HTTP ${status}: the reply does not match the document:\n${this.ajv.errorsText(validate.errors, { separator: '\n' })}\n${JSON.stringify(body).slice(0, 3000)}`,
      );
    }
  }
}
