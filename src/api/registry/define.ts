// What a resource declaration says, once: the wire message, REST paths, nouns, store kind,
// capabilities, filters, field rules for updates, references, table columns, completion and
// the help of its generic verbs. Client, CLI, server, completion, help and seeds read it.
//
// Plain data and small functions, with type-only imports: `pctl --help` reads the
// registry, so it must not load zod (the wire schemas are named, not imported: see
// `wireSchema()` in src/api/schemas.ts).
import type * as z from 'zod';
import type * as Wire from '../schemas.js';

/** The wire messages of src/api/schemas.ts that are resources (also the .proto message names). */
export type WireName = Wire.WireName;
export type WireType<W extends WireName> = z.output<(typeof Wire)[W]>;

/**
 * Every kind of stored record, by the store's `kind` column: each resource's (its wire name,
 * uncapitalized: `RoleBinding` → `roleBinding`), and the records that hang off them (artifact
 * versions) or are served outside the registry (advisory documents, vulnerability metadata).
 */
export type StoreKind = Uncapitalize<WireName> | 'artifactVersion' | 'advisoryDocument' | 'vulnerabilityMetadata';

/** The operations of the spec's domain table. */
export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete';

// ---- table columns (what `-o table` and `-o wide` show) ----

type CellKind = 'text' | 'time' | 'bool' | 'digest' | 'uid';

export interface Column<T> {
  header: string;
  value: (item: T) => string | number | boolean | undefined | null;
  /**
   * `time` cells are relative on a TTY and RFC 3339 elsewhere; `digest` cells are short on a TTY,
   * full elsewhere; `uid` cells are short in a table on a TTY (the last segment, or the shortest
   * suffix no other row shares) and full with `-o wide`, in a pipe and in every other format.
   */
  kind?: CellKind;
  /** Shown only with `-o wide`. */
  wide?: boolean;
  /** Free text that may be cut first when the table is wider than the terminal. */
  shrink?: boolean;
  /** Never cut (names and uids: a cut one cannot be copied into the next command). */
  keep?: boolean;
}

export interface View<T> {
  /** Plural noun for messages ("No groups found."). */
  noun: string;
  /**
   * The table's columns. The first is what a person scans for, and what `order_by=name` sorts
   * by: NAME wherever the resource has a name.
   */
  columns: Column<T>[];
  /** What `-o id` prints, one per line. */
  id: (item: T) => string;
}

/** Small helpers so that a declaration reads like a table of columns. */
export const col = <T>(header: string, value: Column<T>['value'], extra: Omit<Column<T>, 'header' | 'value'> = {}): Column<T> => ({
  header,
  value,
  ...extra,
});
export const timeCol = <T>(header: string, value: Column<T>['value'], extra: Omit<Column<T>, 'header' | 'value' | 'kind'> = {}): Column<T> =>
  col(header, value, { kind: 'time', ...extra });
const byUid = (item: { uid?: string | undefined }): string => item.uid ?? '';
/** The NAME column most resources start with: never cut. */
export const nameCol = <T extends { name: string }>(): Column<T> => col<T>('NAME', (item) => item.name, { keep: true });
/** The UID column (after NAME): short on a terminal, never cut. */
export const uidCol = <T extends { uid?: string | undefined }>(extra: Omit<Column<T>, 'header' | 'value' | 'kind' | 'keep'> = {}): Column<T> =>
  col<T>('UID', byUid, { kind: 'uid', keep: true, ...extra });

// ---- help ----

/** [what it does, the command line]: shown as `  # note` then `  $ command`. */
export type Example = readonly [note: string, command: string];

export interface Help {
  /** One line, for the parent's command list. */
  summary: string;
  /** The longer text of `--help` and the man page. */
  description: string;
  examples: readonly Example[];
}

// ---- the declaration ----

/** A stored column a list filter matches exactly. */
type FilterColumn = 'name' | 'alt_key' | 'parent';

interface ListFilter {
  /** The store column the query parameter matches (exact, repeatable, comma-separated). */
  column: FilterColumn;
  /** The CLI flag that sets it (repeatable). */
  flag: string;
  description: string;
}

/**
 * How `<noun> list` is scoped on the command line: `subtree` takes --descendants-of,
 * --children-of and --name; `group` takes --group (= --children-of) and --descendants-of.
 */
type ListScopeFlags = 'subtree' | 'group' | 'none';

export interface ResourceDecl<W extends WireName = WireName, T = WireType<W>> {
  /** Wire message name (schemas.ts export, proto message, AIP-193 messages): "RoleBinding". */
  kind: W;
  /** The list envelope key and the last segment of the collection path: "roleBindings". */
  plural: string;
  /** Collection path; a single resource lives at `${path}/${uid}`. */
  path: string;
  nouns: {
    /** In messages: "role binding". */
    one: string;
    /** In messages: "role bindings". */
    many: string;
    /** The CLI command: "role-bindings". */
    cli: string;
  };
  /** The store's kind column: the wire name, uncapitalized ("roleBinding"). */
  storeKind: Uncapitalize<W>;
  /**
   * Capability prefix: `${capability}.list`, `.create` … ("role_bindings"), the rule of an
   * operation the vendor publishes no method for (a get needs `.list`).
   */
  capability: string;
  /**
   * The vendor's published v2 service (`chainguard.platform.iam.v2.GroupsService`): each
   * operation's rule is its method's `chainguard.annotations.iam` (ListGroups, GetGroup,
   * CreateGroup, UpdateGroup, DeleteGroup; src/api/registry/published-rules.ts).
   */
  published: {
    service: string;
    /** An operation answered by a method of another name or service (a tag's update: v1's `chainguard.platform.registry.Registry/UpdateTag`). */
    methods?: Partial<Record<Operation, string>>;
    /** The service's methods beyond the standard ones that serve answers (their capabilities are grantable). */
    more?: readonly string[];
  };
  /** The operations the API offers. */
  operations: readonly Operation[];
  /**
   * `hierarchy`: a caller sees what lies below the groups it holds `.list` on;
   * `global`: `.list` held on any group shows every item (advisories, built-in roles).
   */
  visibility: 'hierarchy' | 'global';
  /** Where items live: under a group, under another resource (tags under repos), or nowhere. */
  parent: { kind: 'group' | 'repo'; field: string } | null;
  /** Query filters this list accepts beyond the shared ones. */
  filters: Readonly<Record<string, ListFilter>>;
  /** Fields an update may name in updateMask (dotted for nested fields). */
  updatable: readonly string[];
  /** Fields the server sets; in a PATCH body without a mask they are ignored, in a mask they are an error. */
  outputOnly: readonly string[];
  /** Secrets a request may carry and no response, log or trace ever shows (dotted paths). */
  writeOnly?: readonly string[];
  /** Operations beyond list that the built-in editor role may perform. */
  editor?: readonly Operation[];
  /**
   * What is accepted wherever a uid of this resource is expected, besides the uid: a name or a
   * unique uid suffix (true), a unique uid suffix only ('uid suffix': a resource without a name
   * of its own, such as an invite), or nothing (false).
   */
  references: boolean | 'uid suffix';
  /** Filter values every listing sends unless it sets that filter itself (a parameter the API requires). */
  listDefaults?: Readonly<Record<string, readonly string[]>>;
  /** The list filter a reference is looked up by, when it is not the name (advisories: advisoryIds). */
  referenceFilter?: string;
  /** The table: columns, wide columns and what `-o id` prints. */
  view: View<T>;
  /** Live completion: the candidates one listing (ordered so) offers, `value → description`. */
  completion?: { orderBy?: string; candidates: (item: T) => readonly (readonly [value: string, description: string])[] };
  /** The seed document key items appear under (in their parent's entry), if seeds carry them. */
  seedKey?: string;
  /** The CLI command group the noun's command lives in (`pctl events subscriptions`) instead of the top level. */
  commandGroup?: string;
  /** The CLI: the noun's help, and the generic verbs it offers (list, get, delete) with their help. */
  cli: {
    help: Help;
    list?: Help & { scope: ListScopeFlags };
    get?: Help & { argument: string };
    delete?: Help & { argument: string };
  };
}

/** Checks a declaration against its wire type (columns, completion) and keeps its literal types. */
export function defineResource<W extends WireName>(decl: ResourceDecl<W>): ResourceDecl<W> {
  return decl;
}
