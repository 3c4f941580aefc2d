// The resource-level API client: paths, envelopes and validation come from the shared
// descriptors and schemas in src/api, so the client and the server cannot disagree.
// The schemas (and zod, ~30 ms to load) come in on the first validated response.
import type * as z from 'zod';
import type { WireType } from '../api/registry/define.js';
import { itemPath, listQueryParams, withListDefaults, type ListQuery, type ResourceDescriptor } from '../api/resources.js';
import type * as Schemas from '../api/schemas.js';
import { ResponseError } from './errors.js';
import { HttpClient, type ClientOptions, type RequestOptions } from './http.js';
import { Paginator, type Page, type PageProgress, type PaginateOptions } from './paginate.js';

export { HttpClient, closeAgent } from './http.js';
export { encodeUidPath } from '../api/resources.js';
export { Paginator, type Page, type PaginateOptions } from './paginate.js';

export interface ApiClientOptions extends ClientOptions {
  /** A progress display for a listing of several pages of `noun` (`groups`, `role bindings`); none when undefined. */
  progress?: ((noun: string) => PageProgress | undefined) | undefined;
  /**
   * Check resources against their wire schemas (default true). The CLI turns it off when it
   * prints what the server sent as is (-o json, yaml, ndjson): the bodies are then only
   * checked to be objects, and lists to hold an array.
   */
  validate?: boolean | undefined;
}

type Item<D extends ResourceDescriptor> = WireType<D['kind']>;

let schemasModule: Promise<typeof Schemas> | undefined;
const loadSchemas = (): Promise<typeof Schemas> => (schemasModule ??= import('../api/schemas.js'));

const envelopes = new WeakMap<ResourceDescriptor, z.ZodType>();

async function envelopeOf(d: ResourceDescriptor): Promise<z.ZodType> {
  let schema = envelopes.get(d);
  if (!schema) {
    const { listEnvelope, wireSchema } = await loadSchemas();
    envelopes.set(d, (schema = listEnvelope(d.plural, wireSchema(d) as z.ZodType)));
  }
  return schema;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The shape check of an unvalidated answer: a resource is an object, a list envelope holds an array of them. */
function checkShape(json: unknown, method: string, path: string, listKey?: string): unknown {
  const fail = (what: string) => new ResponseError(`unexpected response from ${method} ${path}: ${what}`);
  if (!isObject(json)) throw fail('not a JSON object');
  if (listKey !== undefined) {
    const items = json[listKey];
    if (items !== undefined && !(Array.isArray(items) && items.every(isObject))) throw fail(`${listKey}: must be an array of objects`);
  }
  return json;
}

/** A validated list envelope as a page: its items under `key`, the token, totalCount as a number. */
function pageOf<T>(envelope: unknown, key: string): Page<T> {
  const env = envelope as Record<string, unknown>;
  return {
    items: (env[key] as T[] | undefined) ?? [],
    nextPageToken: env.nextPageToken as string | undefined,
    totalCount: env.totalCount === undefined ? undefined : Number(env.totalCount),
    skipped: env.skipped as number | undefined,
  };
}

export class ApiClient {
  readonly http: HttpClient;
  readonly #progress: ApiClientOptions['progress'];
  readonly #validate: boolean;

  constructor(opts: ApiClientOptions) {
    this.http = new HttpClient(opts);
    this.#progress = opts.progress;
    this.#validate = opts.validate ?? true;
  }

  /** A request answered by one resource `d`, checked against its wire schema (or its shape). */
  async #resource(d: ResourceDescriptor, method: string, path: string, opts?: RequestOptions): Promise<unknown> {
    if (!this.#validate) return checkShape(await this.http.request(method, path, opts), method, path);
    const { wireSchema } = await loadSchemas();
    return this.http.requestValid(method, path, wireSchema(d) as z.ZodType, opts);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** Raw request, for endpoints without a descriptor. */
  request(method: string, path: string, opts?: RequestOptions): Promise<unknown> {
    return this.http.request(method, path, opts);
  }

  resourcePath(d: ResourceDescriptor, uid: string): string {
    return itemPath(d, uid);
  }

  get<D extends ResourceDescriptor>(d: D, uid: string): Promise<Item<D>> {
    return this.#resource(d, 'GET', this.resourcePath(d, uid)) as Promise<Item<D>>;
  }

  create<D extends ResourceDescriptor>(d: D, body: unknown): Promise<Item<D>> {
    return this.#resource(d, 'POST', d.path, { body }) as Promise<Item<D>>;
  }

  /** PATCH with `updateMask` naming exactly the fields sent, comma-separated. */
  update<D extends ResourceDescriptor>(d: D, uid: string, fields: Record<string, unknown>, mask: readonly string[]): Promise<Item<D>> {
    return this.#resource(d, 'PATCH', this.resourcePath(d, uid), {
      query: [['updateMask', mask.join(',')]],
      body: fields,
    }) as Promise<Item<D>>;
  }

  /** A custom method (AIP-136): POST `<collection>:verb`, or `<collection>/<uid>:verb` with a uid; the answer checked against `schema`. */
  action<S extends z.ZodType>(d: ResourceDescriptor, verb: string, body: unknown, schema: S, uid?: string): Promise<z.output<S>> {
    const path = uid === undefined ? `${d.path}:${verb}` : `${this.resourcePath(d, uid)}:${verb}`;
    return this.http.requestValid('POST', path, schema, { body });
  }

  async delete(d: ResourceDescriptor, uid: string): Promise<void> {
    await this.http.request('DELETE', this.resourcePath(d, uid));
  }

  async listPage<D extends ResourceDescriptor>(d: D, query: ListQuery): Promise<Page<Item<D>>> {
    const opts = { query: listQueryParams(withListDefaults(d, query)) };
    const env = this.#validate
      ? await this.http.requestValid('GET', d.path, await envelopeOf(d), opts)
      : checkShape(await this.http.request('GET', d.path, opts), 'GET', d.path, d.plural);
    return pageOf<Item<D>>(env, d.plural);
  }

  /**
   * Every item of a collection that is not a registry resource (`/libraries/v2/artifacts/{uid}/versions`,
   * `/advisory/v2/metadata`): its path, list key and item schema, paged like any list.
   */
  listCollection<S extends z.ZodType>(path: string, key: string, item: S, opts: PaginateOptions = {}): Paginator<z.output<S>> {
    let envelope: z.ZodType | undefined;
    const fetchPage = async (query: ListQuery) => {
      envelope ??= (await loadSchemas()).listEnvelope(key, item);
      return pageOf<z.output<S>>(await this.http.requestValid('GET', path, envelope, { query: listQueryParams(query) }), key);
    };
    return new Paginator(fetchPage, { ...opts, progress: opts.progress ?? this.#progress?.(key) });
  }

  /** Every matching item, page by page, bounded by opts.limit. */
  list<D extends ResourceDescriptor>(d: D, opts: PaginateOptions = {}): Paginator<Item<D>> {
    const progress = opts.progress ?? this.#progress?.(d.nouns.many);
    return new Paginator((query) => this.listPage(d, query), { ...opts, progress });
  }
}
