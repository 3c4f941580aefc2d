// What diff and apply both do before they differ: read and validate the manifest (before
// any request), find its subtrees on the server, read what is there, learn who the caller
// is, and plan.
import type { SeedDocument } from '../../api/seed.js';
import type { ApiClient } from '../../client/index.js';
import { resolveConnection } from '../connect.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { whoAmI, type WhoAmI } from '../shared/auth.js';
import { readManifest } from './document.js';
import type { GroupPathLookup } from '../../api/references.js';
import { resolver } from '../shared/resolve.js';
import { readLive, type LiveState } from './live.js';
import { makePlan, PlanError, type Plan } from './plan.js';

/** Kinds of the seed format that apply leaves alone, and why (said once each, on stderr). */
const UNMANAGED: [test: (doc: SeedDocument) => boolean, note: string][] = [
  [(d) => someGroup(d, (g) => Boolean(g.invites?.length)), 'invites are left alone: their codes are shown once, at create (pctl invites create)'],
  [(d) => someGroup(d, (g) => Boolean(g.repos?.some((r) => r.tags?.length))), 'tags are left alone: they come from pushes to the registry (the API only reads them)'],
  [(d) => Boolean(d.advisories?.length || d.libraries?.length || d.advisoryDocuments?.length || d.vulnerabilityMetadata?.length),
    'advisories, libraries, advisory documents and vulnerability metadata are left alone: the API only reads them'],
];

function someGroup(doc: SeedDocument, test: (g: NonNullable<SeedDocument['organizations']>[number]) => boolean): boolean {
  const walk = (g: NonNullable<SeedDocument['organizations']>[number]): boolean => test(g) || (g.groups ?? []).some(walk);
  return (doc.organizations ?? []).some(walk);
}

/** Who the caller signs in as (asked while the state is read). */
export async function whoIsCalling(ctx: Context, client: ApiClient): Promise<WhoAmI> {
  const { token } = await resolveConnection(ctx);
  return token ? whoAmI(ctx, client, token) : {};
}

/** The identity uids the caller signs in as: never updated or deleted by apply, nor their bindings deleted. */
export function callerIdentities(who: WhoAmI, live: Pick<LiveState, 'identities'>): Set<string> {
  const self = new Set<string>();
  if (who.identity) self.add(who.identity.uid);
  for (const i of live.identities) if (i.claimMatch.issuer === who.iss && i.claimMatch.subject === who.sub) self.add(i.uid);
  return self;
}

export interface Session {
  doc: SeedDocument;
  plan: Plan;
  client: ApiClient;
}

export async function planFile(ctx: Context, file: string, prune: boolean): Promise<Session> {
  const doc = await readManifest(file, ctx.io.stdin);
  const client = await ctx.client();
  const roots = new Map<string, GroupPathLookup>();
  const refs = resolver(ctx);
  const readState = async () => {
    await Promise.all((doc.organizations ?? []).map(async (org) => roots.set(org.name, await refs.groupPath(org.name))));
    const rootUids = [...roots.values()].flatMap((r) => ('uid' in r ? [r.uid] : []));
    return readLive(client, rootUids, { tolerant: false });
  };
  // Side by side, and in one Promise.all: when one fails (the server is down), the other's
  // failure is handled too, not left to crash the process as an unhandled rejection.
  const [who, live] = await Promise.all([whoIsCalling(ctx, client), readState()]);
  const self = callerIdentities(who, live);
  let plan: Plan;
  try {
    plan = await makePlan(doc, live, roots, client, { prune, self, refs });
  } catch (err) {
    if (err instanceof PlanError) throw new UsageError(err.message, err.problems);
    throw err;
  }
  for (const [test, note] of UNMANAGED) if (test(doc)) plan.notes.push(note);
  return { doc, plan, client };
}

export function writeNotes(ctx: Context, notes: readonly string[]): void {
  for (const note of notes) ctx.io.stderr.write(`note: ${note}\n`);
}
