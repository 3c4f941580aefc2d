// Per-resource table columns, keyed like the descriptors in src/api/resources.ts.
// Adding a resource (repos, tags, advisories …) is one `views` entry: its columns,
// which of them only `-o wide` shows, and how to get the uid for `-o id`.
//
// Type-only imports: this module must not load zod.
import type { Advisory, Group, Identity, Repo, Role, RoleBinding, Tag } from '../api/schemas.js';
import type { ResourceName } from '../api/resources.js';

export type CellKind = 'text' | 'time' | 'bool' | 'digest';

export interface Column<T> {
  header: string;
  value: (item: T) => string | number | boolean | undefined | null;
  /** `time` cells are relative on a TTY and RFC 3339 elsewhere; `digest` cells are short on a TTY, full elsewhere. */
  kind?: CellKind;
  /** Shown only with `-o wide`. */
  wide?: boolean;
  /** Free text that may be cut first when the table is wider than the terminal. */
  shrink?: boolean;
  /** Never cut (uids: a cut uid cannot be copied into the next command). */
  keep?: boolean;
}

export interface View<T> {
  /** Plural noun for messages ("No groups found."). */
  noun: string;
  columns: Column<T>[];
  /** What `-o id` prints, one per line. */
  id: (item: T) => string;
}

/** Small helpers so that an entry reads like a table of columns. */
export const col = <T>(header: string, value: Column<T>['value'], extra: Omit<Column<T>, 'header' | 'value'> = {}): Column<T> => ({
  header,
  value,
  ...extra,
});
export const timeCol = <T>(header: string, value: Column<T>['value'], extra: Omit<Column<T>, 'header' | 'value' | 'kind'> = {}): Column<T> =>
  col(header, value, { kind: 'time', ...extra });

const byUid = (item: { uid?: string | undefined }) => item.uid ?? '';
/** The UID column every resource starts with. */
export const uidCol = <T extends { uid?: string | undefined }>(): Column<T> => col<T>('UID', byUid, { keep: true });

export const views = {
  groups: {
    noun: 'groups',
    id: byUid,
    columns: [
      uidCol<Group>(),
      col<Group>('NAME', (g) => g.name),
      col<Group>('DESCRIPTION', (g) => g.description, { shrink: true }),
      col<Group>('VERIFIED', (g) => g.verified, { kind: 'bool', wide: true }),
      timeCol<Group>('CREATED', (g) => g.createTime, { wide: true }),
      timeCol<Group>('UPDATED', (g) => g.updateTime, { wide: true }),
    ],
  } satisfies View<Group>,

  identities: {
    noun: 'identities',
    id: byUid,
    columns: [
      uidCol<Identity>(),
      col<Identity>('NAME', (i) => i.name),
      col<Identity>('ISSUER', (i) => i.claimMatch.issuer, { shrink: true }),
      col<Identity>('SUBJECT', (i) => i.claimMatch.subject, { shrink: true }),
      col<Identity>('DESCRIPTION', (i) => i.description, { shrink: true, wide: true }),
      timeCol<Identity>('LAST SEEN', (i) => i.lastSeenTime, { wide: true }),
      timeCol<Identity>('CREATED', (i) => i.createTime, { wide: true }),
      timeCol<Identity>('UPDATED', (i) => i.updateTime, { wide: true }),
    ],
  } satisfies View<Identity>,

  roles: {
    noun: 'roles',
    id: byUid,
    columns: [
      uidCol<Role>(),
      col<Role>('NAME', (r) => r.name),
      col<Role>('DESCRIPTION', (r) => r.description, { shrink: true }),
      col<Role>('CAPABILITIES', (r) => r.capabilities?.join(','), { shrink: true, wide: true }),
      timeCol<Role>('CREATED', (r) => r.createTime, { wide: true }),
      timeCol<Role>('UPDATED', (r) => r.updateTime, { wide: true }),
    ],
  } satisfies View<Role>,

  roleBindings: {
    noun: 'role bindings',
    id: byUid,
    columns: [
      uidCol<RoleBinding>(),
      col<RoleBinding>('IDENTITY', (b) => b.identity.name),
      col<RoleBinding>('ROLE', (b) => b.role.name),
      col<RoleBinding>('GROUP', (b) => b.group.name),
      col<RoleBinding>('IDENTITY UID', (b) => b.identity.uid, { wide: true, keep: true }),
      col<RoleBinding>('SUBJECT', (b) => b.identity.subject, { shrink: true, wide: true }),
      timeCol<RoleBinding>('CREATED', (b) => b.createTime, { wide: true }),
    ],
  } satisfies View<RoleBinding>,

  repos: {
    noun: 'repos',
    id: byUid,
    columns: [
      uidCol<Repo>(),
      col<Repo>('NAME', (r) => r.name),
      col<Repo>('DESCRIPTION', (r) => r.description, { shrink: true }),
      timeCol<Repo>('CREATED', (r) => r.createTime, { wide: true }),
      timeCol<Repo>('UPDATED', (r) => r.updateTime, { wide: true }),
    ],
  } satisfies View<Repo>,

  tags: {
    noun: 'tags',
    id: byUid,
    columns: [
      col<Tag>('NAME', (t) => t.name),
      col<Tag>('DIGEST', (t) => t.digest, { kind: 'digest', keep: true }),
      col<Tag>('DEPRECATED', (t) => t.deprecated, { kind: 'bool' }),
      timeCol<Tag>('UPDATED', (t) => t.updateTime),
      col<Tag>('UID', (t) => t.uid, { wide: true, keep: true }),
    ],
  } satisfies View<Tag>,

  advisories: {
    noun: 'advisories',
    id: byUid,
    columns: [
      col<Advisory>('ADVISORY ID', (a) => a.advisoryId),
      col<Advisory>('ARTIFACT', (a) => a.artifactName),
      timeCol<Advisory>('UPDATED', (a) => a.updateTime),
      col<Advisory>('UID', (a) => a.uid, { wide: true, keep: true }),
    ],
  } satisfies View<Advisory>,
} satisfies Partial<Record<ResourceName, View<never>>>;

export type ViewName = keyof typeof views;
