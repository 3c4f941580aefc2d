// The command group of each registry resource: its generic verbs (list, get, delete) come
// from the declaration, its own verbs (create, update, anything special) from the noun's
// declaration file under commands/. Subcommands are ordered list, get, create, update,
// delete, then the rest.
import type { AnyResource } from '../api/registry/index.js';
import { defineList, flag, optionKey, type AnyCommand, type Flags } from './command.js';

const VERB_ORDER = ['list', 'get', 'create', 'update', 'delete'];

/** The scope flags of a list, as the declaration's `scope` asks. */
function scopeFlags(d: AnyResource, scope: 'subtree' | 'group' | 'none'): Flags {
  const group = { live: 'groups' } as const;
  const many = d.nouns.many;
  const descendantsOf = flag.string('--descendants-of <group>', `only ${many} anywhere below this group or organization (uid, name, name path or uid suffix)`, { complete: group });
  const childrenOf = flag.string('--children-of <group>', `only ${many} directly in this group (uid, name, name path or uid suffix)`, { complete: group });
  if (scope === 'subtree') return { descendantsOf, childrenOf, name: flag.string('--name <name>', `only ${many} with exactly this name`) };
  if (scope === 'group') {
    return {
      group: flag.string('--group <group>', `only ${many} of this group (same as --children-of)`, { complete: group, conflicts: 'childrenOf' }),
      childrenOf,
      descendantsOf,
    };
  }
  return {};
}

function filterFlags(d: AnyResource): Flags {
  return Object.fromEntries(Object.values(d.filters).map((f) => [optionKey(f.flag), flag.list(f.flag, f.description)]));
}

/** The generic verbs a declaration asks for. */
function genericVerbs(d: AnyResource): AnyCommand[] {
  const out: AnyCommand[] = [];
  const { list, get, delete: del } = d.cli;
  // Completed from a live listing when the declaration offers candidates.
  const arg = (description: string) => [{ name: '<uid>', description, ...(d.completion ? { complete: { live: d.plural } } : {}) }];
  if (list) {
    out.push(defineList({
      help: list,
      flags: { ...scopeFlags(d, list.scope), ...filterFlags(d) },
      load: async () => {
        const { runList } = await import('./shared/list.js');
        return { run: (ctx, _args, opts) => runList(ctx, d, opts) };
      },
    }));
  }
  if (get) {
    out.push({
      name: 'get', aliases: ['describe'], args: arg(get.argument), help: get,
      load: async () => {
        const { runGet } = await import('./shared/get.js');
        return { run: (ctx, [ref]) => runGet(ctx, d, ref!) };
      },
    });
  }
  if (del) {
    out.push({
      name: 'delete', aliases: ['rm'], args: arg(del.argument), help: del,
      load: async () => {
        const { runDelete } = await import('./shared/delete.js');
        return { run: (ctx, [ref]) => runDelete(ctx, d, ref!) };
      },
    });
  }
  return out;
}

/** The command group of a resource: generic verbs plus its own, in the usual order. */
export function resourceCommand(d: AnyResource, own: readonly AnyCommand[] = []): AnyCommand {
  const byName = new Map<string, AnyCommand>();
  for (const c of genericVerbs(d)) byName.set(c.name, c);
  for (const c of own) byName.set(c.name, c); // a noun's own declaration replaces the generic verb
  const rank = (n: string) => (VERB_ORDER.includes(n) ? VERB_ORDER.indexOf(n) : VERB_ORDER.length);
  const subcommands = [...byName.values()].sort((a, b) => rank(a.name) - rank(b.name));
  return { name: d.nouns.cli, help: d.cli.help, subcommands };
}
