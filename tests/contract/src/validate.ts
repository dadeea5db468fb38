// Validates answers against openapi.yaml with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { AnySchema, ValidateFunction } from "ajv";

export interface Answer {
  method: string;
  path: string; // the path template of the spec, e.g. /games/{game_id}
  status: number;
  contentType: string;
  body: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function schemaOf(node: Json): AnySchema {
  if (typeof node === "boolean" || isObject(node)) return node;
  throw new Error(`not a schema: ${JSON.stringify(node)}`);
}

// Each `#/...` reference becomes a reference into the spec registered under the id `spec`.
function rebased(node: Json): Json {
  if (Array.isArray(node)) return node.map(rebased);
  if (!isObject(node)) return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === "$ref" && typeof value === "string" && value.startsWith("#/") ? `spec${value}` : rebased(value);
  }
  return out;
}

export class SpecValidator {
  private readonly ajv: Ajv2020;
  private readonly spec: { [key: string]: Json };
  private readonly compiled = new Map<string, ValidateFunction>();
  checked = 0;

  constructor(specPath: string) {
    const parsed: Json = JSON.parse(readFileSync(specPath, "utf8"));
    if (!isObject(parsed)) throw new Error("the spec is not an object");
    this.spec = parsed;
    // strict: false lets OpenAPI's own keywords (discriminator, example) pass as annotations.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    this.ajv.addSchema(schemaOf(rebased(parsed)), "spec");
  }

  private schemaFor(answer: Answer): Json | undefined {
    const paths = this.spec["paths"];
    const operation = isObject(paths) ? paths[answer.path] : undefined;
    const byMethod = isObject(operation) ? operation[answer.method.toLowerCase()] : undefined;
    const responses = isObject(byMethod) ? byMethod["responses"] : undefined;
    if (!isObject(responses)) throw new Error(`no operation ${answer.method} ${answer.path}`);
    let response = responses[String(answer.status)] ?? responses["default"];
    if (isObject(response) && typeof response["$ref"] === "string") {
      const name = response["$ref"].split("/").pop() ?? "";
      const components = this.spec["components"];
      const named = isObject(components) ? components["responses"] : undefined;
      response = isObject(named) ? named[name] : undefined;
    }
    if (!isObject(response)) throw new Error(`status ${answer.status} is not declared for ${answer.method} ${answer.path}`);
    const content = response["content"];
    if (!isObject(content)) return undefined;
    const media = content[answer.contentType];
    if (!isObject(media)) throw new Error(`${answer.contentType} is not declared for ${answer.method} ${answer.path} ${answer.status}`);
    return media["schema"];
  }

  // Throws with Ajv's errors when the answer does not match its declared schema.
  check(answer: Answer): void {
    const schema = this.schemaFor(answer);
    if (answer.status === 304) return;
    if (schema === undefined) throw new Error(`no schema for ${answer.method} ${answer.path} ${answer.status}`);
    this.validate(schema, answer.body, `${answer.method} ${answer.path} ${answer.status}`);
  }

  validate(schema: Json, value: unknown, what: string): void {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(schemaOf(rebased(schema)));
      this.compiled.set(key, validate);
    }
    if (!validate(value)) {
      throw new Error(`${what} does not match openapi.yaml: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
    }
    this.checked += 1;
  }

  // Whether a value matches a schema (for type guards: a checked value needs no cast).
  matches(schema: Json, value: unknown): boolean {
    try {
      this.validate(schema, value, "value");
      return true;
    } catch {
      return false;
    }
  }

  // The schema of one component, e.g. the data of a server-sent message.
  component(name: string): Json {
    return { $ref: `#/components/schemas/${name}` };
  }
}

// `node build/src/validate.js <spec.json> <answers.json>`: validate answers recorded by another client.
if (process.argv[1]?.endsWith("validate.js")) {
  const [specPath, answersPath] = process.argv.slice(2);
  if (specPath === undefined || answersPath === undefined) throw new Error("usage: validate.js <spec.json> <answers.json>");
  const validator = new SpecValidator(specPath);
  const answers: Answer[] = JSON.parse(readFileSync(answersPath, "utf8"));
  for (const answer of answers) validator.check(answer);
  console.log(JSON.stringify({ validated: validator.checked }));
}
