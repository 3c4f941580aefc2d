// The vendor's nine IAM services, GA v2 and v2beta1 (chainguard.platform.iam.v2[beta1]), on
// serve's IAM operations: each method the REST call of the spec's route for it (vendor.ts),
// with the field maps below where the published messages and the spec's JSON differ.
// Methods with no source in serve answer UNIMPLEMENTED naming the closest call.
import { create, getOption, type DescEnum, type DescMessage, type DescMethod, type DescService, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { ApiError, Code, invalidField } from '../../../api/errors.js';
import { groups } from '../../../api/registry/index.js';
import { CHECK_PROVIDERS } from '../../../api/schemas.js';
import type { Principal } from '../../auth/principal.js';
import type { ProviderType } from '../../domain/account-associations.js';
import { groupToWire } from '../../domain/kinds/group.js';
import { wireFormOf } from '../wire.js';
import type { Record_ } from '../../store/store.js';
import type { ReadContext } from './reads.js';
import { CapabilitySchema, name as capabilityName } from '../../../gen/capabilities/capabilities_pb.js';
import { AccountAssociationsService as AccountsV2 } from '../../../gen/chainguard/platform/iam/v2/account_associations_pb.js';
import { ExternalGroupRoleMappingsService as MappingsV2 } from '../../../gen/chainguard/platform/iam/v2/external_group_role_mappings_pb.js';
import { GroupInvitesService as InvitesV2 } from '../../../gen/chainguard/platform/iam/v2/group_invites_pb.js';
import { GroupsService as GroupsV2 } from '../../../gen/chainguard/platform/iam/v2/groups_pb.js';
import { IdentitiesService as IdentitiesV2 } from '../../../gen/chainguard/platform/iam/v2/identities_pb.js';
import { IdentityProvidersService as ProvidersV2 } from '../../../gen/chainguard/platform/iam/v2/identity_providers_pb.js';
import { RoleBindingsService as BindingsV2 } from '../../../gen/chainguard/platform/iam/v2/role_bindings_pb.js';
import { RolesService as RolesV2 } from '../../../gen/chainguard/platform/iam/v2/roles_pb.js';
import { TermsService as TermsV2 } from '../../../gen/chainguard/platform/iam/v2/terms_pb.js';
import { AccountAssociationsService as AccountsV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/account_associations_pb.js';
import { ExternalGroupRoleMappingsService as MappingsV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/external_group_role_mappings_pb.js';
import { GroupInvitesService as InvitesV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/group_invites_pb.js';
import { GroupsService as GroupsV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/groups_pb.js';
import { IdentitiesService as IdentitiesV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/identities_pb.js';
import { IdentityProvidersService as ProvidersV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/identity_providers_pb.js';
import { RoleBindingsService as BindingsV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/role_bindings_pb.js';
import { RolesService as RolesV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/roles_pb.js';
import { TermsService as TermsV2beta1 } from '../../../gen/chainguard/platform/iam/v2beta1/terms_pb.js';
import type { Transcoder } from './transcode.js';
import { fromRestJson, operationTranscoder, standardMethods, uidPath, unimplemented, type ResourceMapping, type VendorOperation, type VendorService } from './vendor.js';

/** The Capability enum's values by serve's capability names (`groups.list`), from the enum's `name` option, and back. */
function capabilityNames(e: DescEnum): { toName: Map<string, string>; fromName: Map<string, string> } {
  const toName = new Map<string, string>();
  const fromName = new Map<string, string>();
  for (const v of e.values) {
    const n = getOption(v, capabilityName);
    if (!n) continue;
    toName.set(v.name, n);
    fromName.set(n, v.name);
  }
  return { toName, fromName };
}
const CAPS = capabilityNames(CapabilitySchema);

const strings = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const uidOf = (v: JsonValue | undefined): string | undefined => (v && typeof v === 'object' && !Array.isArray(v) && typeof v.uid === 'string' ? v.uid : undefined);

/** Drops the output-only fields the published message carries, which a create body would refuse. */
function without(json: JsonObject, ...fields: string[]): JsonObject {
  const out = { ...json };
  for (const f of fields) delete out[f];
  return out;
}

function withoutEmpty(json: JsonObject, ...fields: string[]): JsonObject {
  const out = { ...json };
  for (const f of fields) if (out[f] === '') delete out[f];
  return out;
}

function withOidc(p: JsonObject, map: (oidc: JsonObject) => JsonObject): JsonObject {
  return p.oidc && typeof p.oidc === 'object' && !Array.isArray(p.oidc) ? { ...p, oidc: map(p.oidc) } : p;
}

/** serve's capability names as the published Capability enum's values; names the enum lacks are left out. */
function capabilitiesFromRest(r: JsonObject): JsonObject {
  return r.capabilities === undefined ? r : { ...r, capabilities: strings(r.capabilities).map((c) => CAPS.fromName.get(c)).filter((c): c is string => c !== undefined) };
}

const IAM: Record<string, ResourceMapping> = {
  Group: {
    path: '/iam/v2/groups', field: 'group', plural: 'groups',
    // status and resource limits are output only (the spec's REST refuses them in a create).
    toRest: (g) => without(g, 'status', 'resourceLimits'),
    fromRest: (g) => ({ ...g, resourceLimits: Object.fromEntries(Object.entries((g.resourceLimits ?? {}) as JsonObject).filter(([, v]) => Number.isInteger(v))) }),
  },
  Identity: {
    path: '/iam/v2/identities', field: 'identity', plural: 'identities',
    // The spec's JSON leaves issuer and subject empty beside their patterns, and claimMatch
    // empty beside the relationship's other forms; the published ones are oneofs.
    fromRest: (i) => {
      if (i.staticKeys !== undefined || i.awsIdentity !== undefined || i.servicePrincipal !== undefined) return without(i, 'claimMatch');
      return i.claimMatch && typeof i.claimMatch === 'object' && !Array.isArray(i.claimMatch) ? { ...i, claimMatch: withoutEmpty(i.claimMatch, 'issuer', 'subject') } : i;
    },
  },
  Role: {
    path: '/iam/v2/roles', field: 'role', plural: 'roles',
    // The published Capability enum (CAP_IAM_GROUPS_LIST) is serve's capability name (groups.list) by the value's `name` option.
    toRest: (r) => (r.capabilities === undefined ? r : { ...r, capabilities: strings(r.capabilities).map((c) => CAPS.toName.get(c) ?? c) }),
    fromRest: capabilitiesFromRest,
  },
  RoleBinding: {
    path: '/iam/v2/roleBindings', field: 'role_binding', plural: 'role_bindings',
    fromRest: (b) => ({ ...b, identityUid: uidOf(b.identity) ?? '', roleUid: uidOf(b.role) ?? '' }),
  },
  IdentityProvider: {
    path: '/iam/v2/identityProviders', field: 'identity_provider', plural: 'identity_providers',
    // The published enum prefixes its values (CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID); the spec's JSON does not.
    // Unspecified (absent from proto3 JSON) is SUB_EQUALS_EXTERNAL_ID, as the published file says: so
    // the provider's update with mask "*" keeps the rule rather than clearing it.
    toRest: (p) => withOidc(p, (o) => ({ ...o, correlationRule: typeof o.correlationRule === 'string' ? o.correlationRule.replace(/^CORRELATION_RULE_/, '') : 'SUB_EQUALS_EXTERNAL_ID' })),
    fromRest: (p) => withOidc(p, (o) => (typeof o.correlationRule === 'string' ? { ...o, correlationRule: `CORRELATION_RULE_${o.correlationRule}` } : o)),
  },
  GroupInvite: {
    path: '/iam/v2/groupInvites', field: 'group_invite', plural: 'group_invites',
    fromRest: (i) => (i.role && typeof i.role === 'object' && !Array.isArray(i.role) ? { ...i, role: capabilitiesFromRest(i.role) } : i),
  },
  AccountAssociation: { path: '/iam/v2/accountAssociations', field: 'account_association', plural: 'account_associations' },
};

/** BatchCreateRoleBindingsRequest.requests: "A maximum of 25 requests can be created in a batch." */
const BATCH_MAX = 25;

const SCIM = 'SCIM provisioning has no source in serve (its identity providers carry no SCIM settings); the closest is GetIdentityProvider';

/** The methods beyond Get/List/Create/Update/Delete, by service name (the same in v2 and v2beta1). */
const SPECIAL: Record<string, Record<string, Transcoder>> = {
  GroupsService: {
    RequestGroupAccess: unimplemented('RequestGroupAccess', 'group access requests have no source in serve; the closest is CreateGroupInvite'),
    CheckEligibility: unimplemented('CheckEligibility', 'email-domain eligibility has no source in serve; the closest is ListGroups'),
  },
  IdentitiesService: {
    UpdateIdentityMetadata: unimplemented('UpdateIdentityMetadata', 'identity metadata (marketing profile fields) has no source in serve; the closest is UpdateIdentity'),
  },
  IdentityProvidersService: {
    GenerateScimToken: unimplemented('GenerateScimToken', SCIM),
    RegenerateScimToken: unimplemented('RegenerateScimToken', SCIM),
    RevokeScimToken: unimplemented('RevokeScimToken', SCIM),
    SetScimEnabled: unimplemented('SetScimEnabled', SCIM),
  },
};

const MAPPINGS = 'external group role mappings have no source in serve (its identity providers map no external groups); the closest is ListRoleBindings';
const TERMS = 'terms acceptances have no source in serve; the closest is GetGroup';

function allUnimplemented(service: DescService, closest: string): VendorService {
  return { service, transcoders: new Map(service.methods.map((m) => [m, unimplemented(m.name, closest)])) };
}

/** The bindings as the published RoleBinding: serve's wire form mapped (identity_uid, role_uid). */
function bindingMessage(ctx: ReadContext, output: DescMessage, rec: Record_): Message {
  return fromRestJson(output, BINDING_WIRE.toWire(rec, ctx.store), IAM.RoleBinding!.fromRest);
}
const BINDING_WIRE = wireFormOf('RoleBinding');

interface Operation {
  verb: string;
  path: (request: Message) => string;
  run: (ctx: ReadContext, principal: Principal, request: Message, method: DescMethod) => Promise<Message>;
}

/** The methods no one REST call answers, by service name: each the domain operation. */
const OPERATIONS: Record<string, Record<string, Operation>> = {
  GroupsService: {
    // The verified organization named as the email domain of the caller's token (any caller:
    // the published rule is unscoped). Every miss is one NOT_FOUND, as the published comment says.
    LookupGroup: {
      verb: 'GET', path: () => '/iam/v2/groups:lookupGroup',
      run: (ctx, principal, _request, method) => {
        const domain = principal.email?.split('@')[1]?.toLowerCase();
        const org = domain ? ctx.store.roots(groups.storeKind).find((g) => g.name === domain && g.data.verified) : undefined;
        if (!org) throw new ApiError(Code.NOT_FOUND, 'No verified organization matches the email domain of your token', { reason: 'NOT_FOUND' });
        const field = method.output.fields.find((f) => f.name === 'group');
        if (field?.fieldKind !== 'message') throw new Error('LookupGroupResponse.group is no message');
        return Promise.resolve(create(method.output, { group: fromRestJson(field.message, groupToWire(org, ctx.store), IAM.Group!.fromRest) }));
      },
    },
  },
  IdentitiesService: {
    // The identity of a literal issuer and subject pair (unique in serve), for any caller.
    LookupIdentity: {
      verb: 'GET', path: () => '/iam/v2/identities:lookupIdentity',
      run: async (ctx, principal, request, method) => {
        const { issuer, subject } = request as unknown as { issuer: string; subject: string };
        return create(method.output, { uid: await ctx.domain.identities.lookup(principal, issuer, subject) });
      },
    },
  },
  AccountAssociationsService: {
    // REST's :check (the provider block's presence and format), the published enums prefixed;
    // read once the caller may check the association.
    CheckAccountAssociation: {
      verb: 'POST', path: (req) => `${uidPath('/iam/v2/accountAssociations', (req as unknown as { uid: string }).uid)}:check`,
      run: async (ctx, principal, request, method) => {
        const { uid, providerType } = request as unknown as { uid: string; providerType: number };
        const field = method.input.fields.find((f) => f.name === 'provider_type');
        const name = field?.fieldKind === 'enum' ? field.enum.values.find((v) => v.number === providerType)?.name.replace(/^ACCOUNT_PROVIDER_TYPE_/, '') : undefined;
        const result = await ctx.domain.accountAssociations.check(principal, uid, () => {
          if (!name || !(CHECK_PROVIDERS as readonly string[]).includes(name)) throw invalidField('provider_type', `must be one of ${CHECK_PROVIDERS.map((p) => `ACCOUNT_PROVIDER_TYPE_${p}`).join(', ')}`);
          return name as ProviderType;
        });
        return fromRestJson(method.output, { ...result, status: `CHECK_STATUS_${result.status}` });
      },
    },
  },
  RoleBindingsService: {
    // In place, keeping the uid: the provider's update (mask "*": identity_uid and role_uid).
    UpdateRoleBinding: {
      verb: 'PATCH', path: (req) => uidPath('/iam/v2/roleBindings', (req as unknown as { roleBinding?: { uid: string } }).roleBinding?.uid, 'role_binding.uid'),
      run: async (ctx, principal, request, method) => {
        const { roleBinding, updateMask } = request as unknown as { roleBinding?: { uid: string; identityUid: string; roleUid: string }; updateMask?: { paths: string[] } };
        const paths = updateMask?.paths ?? [];
        const masked = (field: string) => !paths.length || paths.includes('*') || paths.includes(field);
        for (const p of paths) if (!['*', 'identity_uid', 'role_uid'].includes(p)) throw invalidField('update_mask', `${p} is not an updatable field of RoleBinding (updatable: identity_uid, role_uid)`);
        const change = { ...(masked('identity_uid') && roleBinding?.identityUid ? { identityUid: roleBinding.identityUid } : {}), ...(masked('role_uid') && roleBinding?.roleUid ? { roleUid: roleBinding.roleUid } : {}) };
        const rec = await ctx.domain.roleBindings.replace(principal, roleBinding?.uid ?? '', change);
        return bindingMessage(ctx, method.output, rec);
      },
    },
    // All or none, in order (each request's parent, else the batch's; its role, else the
    // batch's role_uid, which a request may not contradict: AIP-233), at most 25.
    BatchCreateRoleBindings: {
      verb: 'POST', path: () => '/iam/v2/roleBindings:batchCreate',
      run: async (ctx, principal, request, method) => {
        const { parent, requests, roleUid } = request as unknown as { parent: string; roleUid: string; requests: { parent: string; roleBinding?: { identityUid: string; roleUid: string } }[] };
        const binding = method.output.fields.find((f) => f.name === 'role_bindings')!;
        if (binding.fieldKind !== 'list' || binding.listKind !== 'message') throw new Error('BatchCreateRoleBindingsResponse.role_bindings is no list of messages');
        if (!requests.length || requests.length > BATCH_MAX) throw invalidField('requests', `must hold 1 to ${BATCH_MAX} requests`);
        const inputs = requests.map((r, i) => {
          const own = r.roleBinding?.roleUid;
          if (own && roleUid && own !== roleUid) throw invalidField(`requests[${i}].role_binding.role_uid`, `contradicts the batch's role_uid ${roleUid}`);
          const input = { parent: r.parent || parent, identityUid: r.roleBinding?.identityUid ?? '', roleUid: own || roleUid };
          if (!input.parent) throw invalidField(`requests[${i}].parent`, 'is required (or the batch\'s parent)');
          return input;
        });
        const made = await ctx.domain.roleBindings.batchCreate(principal, inputs);
        return create(method.output, { roleBindings: made.map((rec) => bindingMessage(ctx, binding.message, rec)) });
      },
    },
  },
};

function iam(service: DescService): VendorService {
  const ops = OPERATIONS[service.name] ?? {};
  const special: Record<string, Transcoder> = { ...SPECIAL[service.name] };
  const operations = new Map<DescMethod, VendorOperation>();
  for (const method of service.methods) {
    const op = ops[method.name];
    if (!op) continue;
    special[method.name] = operationTranscoder(method, op.verb, op.path);
    operations.set(method, (ctx, principal, request) => op.run(ctx, principal, request, method));
  }
  const standard = standardMethods(service, IAM, special);
  const bindings = service.methods.find((m) => m.name === 'ListRoleBindings');
  if (bindings) standard.transcoders.set(bindings, withBindingFilters(standard.transcoders.get(bindings)!));
  return { service, transcoders: standard.transcoders, operations: new Map([...standard.operations, ...operations]) };
}

/**
 * ListRoleBindings' filters: a binding lives in its group, so `group` is REST's
 * uidp.children_of. serve's lists have no index of a binding's identity or role: those
 * filters are refused rather than ignored (an ignored filter would answer too much).
 */
function withBindingFilters(t: Transcoder): Transcoder {
  return {
    ...t,
    toRest: (request) => {
      const call = t.toRest(request);
      const q = call.query;
      for (const f of ['identity', 'role']) {
        if (q.get(f)) throw invalidField(f, 'role bindings cannot be listed by identity or role on this server; the closest is group (or uidp), reading each binding\'s identity_uid and role_uid');
        q.delete(f);
      }
      const group = q.get('group');
      q.delete('group');
      if (group) {
        if (q.has('uidp.children_of') || q.has('uidp.descendants_of')) throw invalidField('group', 'cannot be combined with uidp (a group\'s bindings are uidp.children_of the group)');
        q.set('uidp.children_of', group);
      }
      return call;
    },
  };
}

export const IAM_SERVICES: readonly VendorService[] = [
  ...[GroupsV2, IdentitiesV2, RolesV2, BindingsV2, ProvidersV2, InvitesV2, AccountsV2].map(iam),
  allUnimplemented(MappingsV2, MAPPINGS),
  allUnimplemented(TermsV2, TERMS),
  ...[GroupsV2beta1, IdentitiesV2beta1, RolesV2beta1, BindingsV2beta1, ProvidersV2beta1, InvitesV2beta1, AccountsV2beta1].map(iam),
  allUnimplemented(MappingsV2beta1, MAPPINGS),
  allUnimplemented(TermsV2beta1, TERMS),
];
