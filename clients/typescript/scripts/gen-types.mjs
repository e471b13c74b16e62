#!/usr/bin/env node
// Generates src/generated/openapi.ts from docs/openapi.json: a TypeScript type for every
// component schema, the query, body and response types of every operation, and the table of
// operations (method, path template, response format) that the client's methods call.
//
//   node scripts/gen-types.mjs            write the file
//   node scripts/gen-types.mjs --check    exit 1 if the committed file differs (the build and a
//                                         test run this, so the client cannot drift from the
//                                         document the server is tested against)
//
// Written for the subset of OpenAPI 3.0 that docs/openapi.json uses; anything else is an error
// here rather than a silently wrong type.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const SPEC_PATH = join(PACKAGE_DIR, "..", "..", "docs", "openapi.json");
export const OUT_PATH = join(PACKAGE_DIR, "src", "generated", "openapi.ts");

// Component names that would shadow a global of the same name inside TypeScript modules.
const RENAMED = { Error: "ErrorBody" };

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];

function typeName(ref) {
  const name = ref.replace("#/components/schemas/", "");
  return RENAMED[name] ?? name;
}

function pascal(id) {
  return id[0].toUpperCase() + id.slice(1);
}

function comment(lines, indent) {
  const text = lines.filter(Boolean).join("\n").trim();
  if (!text) return "";
  if (!text.includes("\n") && indent.length + text.length < 92) return `${indent}/** ${text} */\n`;
  const body = text.split("\n").map((l) => `${indent} * ${l}`.trimEnd()).join("\n");
  return `${indent}/**\n${body}\n${indent} */\n`;
}

function schemaDoc(schema) {
  return [schema.description, schema.deprecated ? "@deprecated" : ""];
}

function propName(name) {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function nullable(type, schema) {
  return schema.nullable ? `${type} | null` : type;
}

/** The TypeScript type of a schema, `indent` being the indentation of the line it is on. */
function tsType(schema, indent = "") {
  if (schema.$ref) return nullable(typeName(schema.$ref), schema);
  if (schema.allOf) {
    if (schema.allOf.length !== 1) throw new Error("allOf with several schemas is not supported");
    return nullable(tsType(schema.allOf[0], indent), schema);
  }
  if (schema.oneOf) {
    return nullable(schema.oneOf.map((s) => tsType(s, indent)).join(" | "), schema);
  }
  if (schema.enum) return nullable(schema.enum.map((v) => JSON.stringify(v)).join(" | "), schema);
  switch (schema.type) {
    case "string":
      return nullable("string", schema);
    case "integer":
    case "number":
      return nullable("number", schema);
    case "boolean":
      return nullable("boolean", schema);
    case "array": {
      const item = tsType(schema.items, indent);
      return nullable(/[ |]/.test(item) ? `Array<${item}>` : `${item}[]`, schema);
    }
    case "object":
      return nullable(objectType(schema, indent), schema);
    case undefined:
      return nullable("unknown", schema);
    default:
      throw new Error(`unsupported schema type ${schema.type}`);
  }
}

function objectType(schema, indent) {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return "Record<string, unknown>";
  const required = new Set(schema.required ?? []);
  const inner = indent + "  ";
  const lines = props.map(
    ([name, prop]) =>
      comment(schemaDoc(prop), inner) +
      `${inner}${propName(name)}${required.has(name) ? "" : "?"}: ${tsType(prop, inner)};`,
  );
  if (schema.additionalProperties === true) lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/** `export interface` for object schemas (readable in editors), `export type` otherwise. */
function declaration(name, schema, doc) {
  const type = tsType(schema);
  const head = comment(doc, "");
  if (type.startsWith("{")) return `${head}export interface ${name} ${type}\n`;
  return `${head}export type ${name} = ${type};\n`;
}

function operationsOf(spec) {
  const ops = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of HTTP_METHODS) {
      if (item[method]) ops.push({ path, method: method.toUpperCase(), op: item[method] });
    }
  }
  return ops;
}

function jsonSchemaOf(content) {
  return content?.["application/json"]?.schema;
}

/** Query, body and response declarations of one operation, and its row in the table. */
function operationDecls({ path, method, op }) {
  const id = op.operationId;
  const decls = [];
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === "path").map((p) => p.name);
  const query = params.filter((p) => p.in === "query");
  let queryType = "undefined";
  if (query.length > 0) {
    queryType = `${pascal(id)}Query`;
    const schema = {
      type: "object",
      required: query.filter((p) => p.required).map((p) => p.name),
      properties: Object.fromEntries(
        query.map((p) => [p.name, { ...p.schema, description: p.description }]),
      ),
    };
    decls.push(declaration(queryType, schema, [`Query parameters of ${method} ${path}.`]));
  }
  let bodyType = "undefined";
  const body = jsonSchemaOf(op.requestBody?.content);
  if (body) {
    bodyType = body.$ref ? typeName(body.$ref) : `${pascal(id)}Body`;
    if (!body.$ref) decls.push(declaration(bodyType, body, [`Body of ${method} ${path}.`]));
  }
  const { responseType, format } = responseOf(id, op, decls, `${method} ${path}`);
  const row = { method, path, pathParams, format, hasQuery: query.length > 0, hasBody: !!body };
  const types = `  ${id}: { query: ${queryType}; body: ${bodyType}; response: ${responseType} };`;
  return { decls, row, types };
}

/** The union of the operation's 2xx bodies; inline schemas get a named declaration. */
function responseOf(id, op, decls, route) {
  const success = Object.entries(op.responses).filter(([status]) => status.startsWith("2"));
  const types = new Set();
  let format = "json";
  for (const [, response] of success) {
    const schema = jsonSchemaOf(response.content);
    if (!schema) {
      format = "text"; // text/plain metrics, application/x-ndjson export
      types.add("string");
    } else if (schema.$ref) {
      types.add(typeName(schema.$ref));
    } else if (schema.type === "object" && !schema.properties) {
      types.add("Record<string, unknown>"); // the OpenAPI document itself
    } else {
      const name = `${pascal(id)}Response`;
      if (!types.has(name)) decls.push(declaration(name, schema, [`Reply of ${route}.`]));
      types.add(name);
    }
  }
  return { responseType: [...types].join(" | "), format };
}

export function generate(spec) {
  const out = [
    `// Generated by scripts/gen-types.mjs from docs/openapi.json (${spec.info.title} ` +
      `${spec.info.version}). Do not edit:\n// run \`npm run generate\` after changing the ` +
      `document; the build and the tests fail while this file is stale.\n`,
    `/** info.version of the OpenAPI document these types were generated from. */`,
    `export const API_VERSION = ${JSON.stringify(spec.info.version)};\n`,
  ];
  for (const [name, schema] of Object.entries(spec.components.schemas)) {
    out.push(declaration(typeName(name), schema, schemaDoc(schema)));
  }
  const rows = [];
  const types = [];
  for (const operation of operationsOf(spec)) {
    const decl = operationDecls(operation);
    out.push(...decl.decls);
    rows.push(`  ${operation.op.operationId}: ${JSON.stringify(decl.row)},`);
    types.push(decl.types);
  }
  out.push(
    `/** Every operation of the document: method, path template and how its reply is read. */`,
    `export const OPERATIONS = {\n${rows.join("\n")}\n} as const;\n`,
    `export type OperationId = keyof typeof OPERATIONS;\n`,
    `/** The query, body and (2xx) response types of every operation. */`,
    `export interface OperationTypes {\n${types.join("\n")}\n}\n`,
  );
  return out.join("\n");
}

function main() {
  const spec = JSON.parse(readFileSync(SPEC_PATH, "utf8"));
  const text = generate(spec);
  const shown = relative(process.cwd(), OUT_PATH);
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(OUT_PATH, "utf8");
    } catch {
      // missing: stale
    }
    if (current !== text) {
      console.error(`${shown} is stale: docs/openapi.json changed; run \`npm run generate\``);
      process.exit(1);
    }
    return;
  }
  mkdirSync(dirname(OUT_PATH), { recursive: true });
  writeFileSync(OUT_PATH, text);
  console.log(`wrote ${shown}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
