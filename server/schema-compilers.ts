import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/*
 * Fastify's own schema compilers (the ajv validator and the fast-json-stringify serializer it uses by default), with
 * what they compile kept for the process: every app built in one process compiles each route's schemas once. Fastify
 * makes new compilers for every instance, and building the API's ~90 routes' validators and serializers is most of
 * what `buildApp(...).ready()` costs (about 0.6 CPU s an app, warm); a process that builds many apps over one code
 * base (the test suite: a server or `inject` app in most of its files, several in some) paid it each time. `serve`
 * builds one app, and compiles exactly what it did before.
 *
 * Kept by the schema's content, not its object: the API's hooks (cluster-param.ts, strict-query.ts) give each app a
 * new querystring object of the same content. A compiled validator or serializer depends only on that content and on
 * the compiler's options (the pool key): it holds no state of the app that asked for it.
 */

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type BuildValidator = NonNullable<CompilersFactory['buildValidator']>;
type BuildSerializer = NonNullable<CompilersFactory['buildSerializer']>;

const validatorPool = AjvCompiler();
const serializerPool = SerializerSelector();
const validators = new Map<string, unknown>();
const serializers = new Map<string, unknown>();

/** Compiled once per options and schema content: `compile(route)` when the key is new, else the kept function. */
function keptBy<R extends { schema?: unknown }, F>(kept: Map<string, unknown>, poolKey: string, compile: (route: R) => F): (route: R) => F {
  return (route) => {
    const key = `${poolKey}\u0000${JSON.stringify(route.schema)}`;
    let fn = kept.get(key) as F | undefined;
    if (fn === undefined) {
      fn = compile(route);
      kept.set(key, fn);
    }
    return fn;
  };
}

const buildValidator: BuildValidator = (externalSchemas, options) =>
  keptBy(validators, JSON.stringify([externalSchemas, options]), validatorPool(externalSchemas, options));

const buildSerializer: BuildSerializer = (externalSchemas, options) =>
  keptBy(serializers, JSON.stringify([externalSchemas, options]), serializerPool(externalSchemas, options));

/** Fastify's `schemaController.compilersFactory`: its default compilers, their results kept for the process. */
export const keptSchemaCompilers: CompilersFactory = { buildValidator, buildSerializer };
