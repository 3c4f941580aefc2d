// Scenarios of the published IAM services (chainguard.platform.iam.v2 and v2beta1): the
// Terraform provider's call sequence for each resource it manages (its resource_*.go: the
// fields it sends and its update masks), and the SDK's list-all paging. v2beta1 is v2 byte for
// byte but for the package name, so one set of Go types serves both: the calls name the
// version's method paths (params.version) with the v2 messages.
package main

import (
	"context"
	"strings"
	"time"

	iam "chainguard.dev/sdk/proto/chainguard/platform/iam/v2"
	capabilities "chainguard.dev/sdk/proto/capabilities"
	common "chainguard.dev/sdk/proto/platform/common/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// invoke calls service/method of the scenario's IAM version with the v2 messages.
func invoke[T proto.Message](r *Run, step, service, method string, req proto.Message, res T) (T, bool) {
	path := "/chainguard.platform.iam." + r.Param("version") + "." + service + "/" + method
	return Call(r, step, func(ctx context.Context) (T, error) {
		err := r.Conn.Invoke(ctx, path, req, res)
		return res, err
	})
}

func init() {
	// iam-provider: params.version (v2 | v2beta1), params.org, params.issuer. Creates a group,
	// a role, an identity and a binding as the provider does, reads each back, updates each with
	// the provider's masks, and deletes them in reverse.
	register("iam-provider", func(r *Run) {
		org, issuer := r.Param("org"), r.Param("issuer")

		// resource_group.go: Create (parent, name, description, verified), Get, Update with
		// mask name,description,verified, Delete.
		g, ok := invoke(r, "group create", "GroupsService", "CreateGroup",
			&iam.CreateGroupRequest{Parent: org, Group: &iam.Group{Name: "tf-team", Description: "made by terraform", Verified: false}}, &iam.Group{})
		if !ok {
			return
		}
		r.Check("group create: uid under the org", strings.HasPrefix(g.GetUid(), org+"/"), "uid %q", g.GetUid())
		if got, ok := invoke(r, "group get", "GroupsService", "GetGroup", &iam.GetGroupRequest{Uid: g.GetUid()}, &iam.Group{}); ok {
			r.Equal("group get: name", got.GetName(), "tf-team")
			r.Equal("group get: description", got.GetDescription(), "made by terraform")
		}
		if up, ok := invoke(r, "group update", "GroupsService", "UpdateGroup", &iam.UpdateGroupRequest{
			Group:      &iam.Group{Uid: g.GetUid(), Name: "tf-team", Description: "changed by terraform", Verified: false},
			UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"name", "description", "verified"}},
		}, &iam.Group{}); ok {
			r.Equal("group update: description", up.GetDescription(), "changed by terraform")
			r.Equal("group update: verified", up.GetVerified(), false)
		}
		if list, ok := invoke(r, "group list", "GroupsService", "ListGroups",
			&iam.ListGroupsRequest{Uidp: &common.UIDPFilter{ChildrenOf: org}, Name: "tf-team"}, &iam.ListGroupsResponse{}); ok {
			r.Check("group list: the group, by name", len(list.GetGroups()) == 1 && list.GetGroups()[0].GetUid() == g.GetUid(), "got %v", list.GetGroups())
		}

		// resource_role.go: Create (parent, name, description, capabilities), Get, Update with mask *, Delete.
		role, ok := invoke(r, "role create", "RolesService", "CreateRole", &iam.CreateRoleRequest{Parent: g.GetUid(), Role: &iam.Role{
			Name: "tf-viewer", Description: "reads groups", Capabilities: []capabilities.Capability{capabilities.Capability_CAP_IAM_GROUPS_LIST},
		}}, &iam.Role{})
		if ok {
			r.Equal("role create: capabilities", role.GetCapabilities(), []capabilities.Capability{capabilities.Capability_CAP_IAM_GROUPS_LIST})
			if got, ok := invoke(r, "role get", "RolesService", "GetRole", &iam.GetRoleRequest{Uid: role.GetUid()}, &iam.Role{}); ok {
				r.Equal("role get: name", got.GetName(), "tf-viewer")
			}
			caps := []capabilities.Capability{capabilities.Capability_CAP_IAM_GROUPS_LIST, capabilities.Capability_CAP_IAM_IDENTITY_LIST}
			if up, ok := invoke(r, "role update", "RolesService", "UpdateRole", &iam.UpdateRoleRequest{
				Role:       &iam.Role{Uid: role.GetUid(), Name: "tf-viewer", Description: "reads groups and identities", Capabilities: caps},
				UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"*"}},
			}, &iam.Role{}); ok {
				r.Equal("role update: capabilities", up.GetCapabilities(), caps)
				r.Equal("role update: description", up.GetDescription(), "reads groups and identities")
			}
		}

		// resource_identity.go: Create (parent, name, description, claim_match literal issuer
		// and subject), Get, Update with mask *, Delete.
		id, ok := invoke(r, "identity create", "IdentitiesService", "CreateIdentity", &iam.CreateIdentityRequest{Parent: g.GetUid(), Identity: &iam.Identity{
			Name: "tf-deployer", Description: "CI", Email: "ci@acme.example",
			Relationship: &iam.Identity_ClaimMatch_{ClaimMatch: &iam.Identity_ClaimMatch{
				Iss: &iam.Identity_ClaimMatch_Issuer{Issuer: issuer}, Sub: &iam.Identity_ClaimMatch_Subject{Subject: "repo:acme/app:ref:refs/heads/main"},
			}},
		}}, &iam.Identity{})
		if ok {
			if got, ok := invoke(r, "identity get", "IdentitiesService", "GetIdentity", &iam.GetIdentityRequest{Uid: id.GetUid()}, &iam.Identity{}); ok {
				r.Equal("identity get: issuer", got.GetClaimMatch().GetIssuer(), issuer)
				r.Equal("identity get: subject", got.GetClaimMatch().GetSubject(), "repo:acme/app:ref:refs/heads/main")
				r.Equal("identity get: email", got.GetEmail(), "ci@acme.example")
			}
			if up, ok := invoke(r, "identity update", "IdentitiesService", "UpdateIdentity", &iam.UpdateIdentityRequest{
				Identity: &iam.Identity{Uid: id.GetUid(), Name: "tf-deployer", Description: "CI, release branch", Email: "release@acme.example",
					Relationship: &iam.Identity_ClaimMatch_{ClaimMatch: &iam.Identity_ClaimMatch{
						Iss: &iam.Identity_ClaimMatch_Issuer{Issuer: issuer}, Sub: &iam.Identity_ClaimMatch_Subject{Subject: "repo:acme/app:ref:refs/heads/release"},
					}}},
				UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"*"}},
			}, &iam.Identity{}); ok {
				r.Equal("identity update: subject", up.GetClaimMatch().GetSubject(), "repo:acme/app:ref:refs/heads/release")
				r.Equal("identity update: email", up.GetEmail(), "release@acme.example")
			}
		}

		// resource_rolebinding.go: Create (parent = the group, identity_uid, role_uid), Get, Delete.
		if role != nil && id != nil {
			b, ok := invoke(r, "binding create", "RoleBindingsService", "CreateRoleBinding", &iam.CreateRoleBindingRequest{
				Parent: g.GetUid(), RoleBinding: &iam.RoleBinding{IdentityUid: id.GetUid(), RoleUid: role.GetUid()},
			}, &iam.RoleBinding{})
			if ok {
				if got, ok := invoke(r, "binding get", "RoleBindingsService", "GetRoleBinding", &iam.GetRoleBindingRequest{Uid: b.GetUid()}, &iam.RoleBinding{}); ok {
					r.Equal("binding get: identity_uid", got.GetIdentityUid(), id.GetUid())
					r.Equal("binding get: role_uid", got.GetRoleUid(), role.GetUid())
					r.Equal("binding get: group", got.GetGroup().GetUid(), g.GetUid())
				}
				invoke(r, "binding delete", "RoleBindingsService", "DeleteRoleBinding", &iam.DeleteRoleBindingRequest{Uid: b.GetUid()}, &emptypb.Empty{})
			}
		}
		if id != nil {
			invoke(r, "identity delete", "IdentitiesService", "DeleteIdentity", &iam.DeleteIdentityRequest{Uid: id.GetUid()}, &emptypb.Empty{})
		}
		if role != nil {
			invoke(r, "role delete", "RolesService", "DeleteRole", &iam.DeleteRoleRequest{Uid: role.GetUid()}, &emptypb.Empty{})
		}
		invoke(r, "group delete", "GroupsService", "DeleteGroup", &iam.DeleteGroupRequest{Uid: g.GetUid()}, &emptypb.Empty{})
		invoke(r, "group get after delete", "GroupsService", "GetGroup", &iam.GetGroupRequest{Uid: g.GetUid()}, &iam.Group{})
	})

	// iam-methods: the published methods beyond CRUD: LookupIdentity, UpdateRoleBinding (the
	// provider's, mask *), BatchCreateRoleBindings. params.version, params.org, params.issuer.
	register("iam-methods", func(r *Run) {
		org, issuer := r.Param("org"), r.Param("issuer")
		id, ok := invoke(r, "identity create", "IdentitiesService", "CreateIdentity", &iam.CreateIdentityRequest{Parent: org, Identity: &iam.Identity{
			Name: "lookup-me", Relationship: &iam.Identity_ClaimMatch_{ClaimMatch: &iam.Identity_ClaimMatch{
				Iss: &iam.Identity_ClaimMatch_Issuer{Issuer: issuer}, Sub: &iam.Identity_ClaimMatch_Subject{Subject: "lookup-" + r.Param("version")},
			}},
		}}, &iam.Identity{})
		if !ok {
			return
		}
		if found, ok := invoke(r, "lookup", "IdentitiesService", "LookupIdentity", &iam.LookupIdentityRequest{Issuer: issuer, Subject: "lookup-" + r.Param("version")}, &iam.LookupIdentityResponse{}); ok {
			r.Equal("lookup: the identity", found.GetUid(), id.GetUid())
		}
		invoke(r, "lookup unknown", "IdentitiesService", "LookupIdentity", &iam.LookupIdentityRequest{Issuer: issuer, Subject: "nobody"}, &iam.LookupIdentityResponse{})
		roles := []*iam.Role{}
		for _, name := range []string{"first", "second"} {
			role, ok := invoke(r, "role "+name, "RolesService", "CreateRole", &iam.CreateRoleRequest{Parent: org, Role: &iam.Role{
				Name: name + "-" + r.Param("version"), Capabilities: []capabilities.Capability{capabilities.Capability_CAP_IAM_GROUPS_LIST},
			}}, &iam.Role{})
			if !ok {
				return
			}
			roles = append(roles, role)
		}
		b, ok := invoke(r, "binding create", "RoleBindingsService", "CreateRoleBinding", &iam.CreateRoleBindingRequest{
			Parent: org, RoleBinding: &iam.RoleBinding{IdentityUid: id.GetUid(), RoleUid: roles[0].GetUid()},
		}, &iam.RoleBinding{})
		if !ok {
			return
		}
		if up, ok := invoke(r, "binding update", "RoleBindingsService", "UpdateRoleBinding", &iam.UpdateRoleBindingRequest{
			RoleBinding: &iam.RoleBinding{Uid: b.GetUid(), IdentityUid: id.GetUid(), RoleUid: roles[1].GetUid()},
			UpdateMask:  &fieldmaskpb.FieldMask{Paths: []string{"*"}},
		}, &iam.RoleBinding{}); ok {
			r.Equal("binding update: the same uid", up.GetUid(), b.GetUid())
			r.Equal("binding update: the new role", up.GetRoleUid(), roles[1].GetUid())
			r.Equal("binding update: its role expanded", up.GetRole().GetName(), roles[1].GetName())
		}
		if batch, ok := invoke(r, "batch", "RoleBindingsService", "BatchCreateRoleBindings", &iam.BatchCreateRoleBindingsRequest{
			Parent: org, RoleUid: roles[0].GetUid(), Requests: []*iam.CreateRoleBindingRequest{{RoleBinding: &iam.RoleBinding{IdentityUid: id.GetUid()}}},
		}, &iam.BatchCreateRoleBindingsResponse{}); ok {
			r.Check("batch: one binding of the first role", len(batch.GetRoleBindings()) == 1 && batch.GetRoleBindings()[0].GetRoleUid() == roles[0].GetUid(), "got %v", batch.GetRoleBindings())
		}
		invoke(r, "identity delete", "IdentitiesService", "DeleteIdentity", &iam.DeleteIdentityRequest{Uid: id.GetUid()}, &emptypb.Empty{})
	})

	// iam-others: the provider's group_invite (ttl a Duration, role_uid, email; Create, Get,
	// Delete), identity_provider (OIDC; Create, Get, Update with mask *, Delete) and
	// account_associations (Amazon; Create, Get, Update with mask *, Delete). params.version,
	// params.org, params.role (a role uid to invite with and to default to).
	register("iam-others", func(r *Run) {
		org, roleUid := r.Param("org"), r.Param("role")
		if inv, ok := invoke(r, "invite create", "GroupInvitesService", "CreateGroupInvite", &iam.CreateGroupInviteRequest{Parent: org, GroupInvite: &iam.GroupInvite{
			Ttl: durationpb.New(time.Hour), RoleUid: roleUid, Email: "new@acme.example",
		}}, &iam.GroupInvite{}); ok {
			r.Check("invite create: a code", inv.GetCode() != "", "no code")
			r.Check("invite create: expires in an hour", inv.GetExpirationTime().AsTime().Sub(inv.GetCreateTime().AsTime()).Round(time.Minute) == time.Hour, "expiration %v, created %v", inv.GetExpirationTime().AsTime(), inv.GetCreateTime().AsTime())
			if got, ok := invoke(r, "invite get", "GroupInvitesService", "GetGroupInvite", &iam.GetGroupInviteRequest{Uid: inv.GetUid()}, &iam.GroupInvite{}); ok {
				r.Equal("invite get: role", got.GetRole().GetUid(), roleUid)
				r.Equal("invite get: email", got.GetEmail(), "new@acme.example")
			}
			invoke(r, "invite delete", "GroupInvitesService", "DeleteGroupInvite", &iam.DeleteGroupInviteRequest{Uid: inv.GetUid()}, &emptypb.Empty{})
		}
		idpIn := &iam.IdentityProvider{Name: "okta", DefaultRole: roleUid, Configuration: &iam.IdentityProvider_Oidc{Oidc: &iam.IdentityProvider_OIDC{
			Issuer: "https://acme.okta.example", ClientId: "client", ClientSecret: "s3cret", AdditionalScopes: []string{"email"},
		}}}
		if idp, ok := invoke(r, "idp create", "IdentityProvidersService", "CreateIdentityProvider", &iam.CreateIdentityProviderRequest{Parent: org, IdentityProvider: idpIn}, &iam.IdentityProvider{}); ok {
			r.Equal("idp create: no secret back", idp.GetOidc().GetClientSecret(), "")
			if got, ok := invoke(r, "idp get", "IdentityProvidersService", "GetIdentityProvider", &iam.GetIdentityProviderRequest{Uid: idp.GetUid()}, &iam.IdentityProvider{}); ok {
				r.Equal("idp get: issuer", got.GetOidc().GetIssuer(), "https://acme.okta.example")
			}
			idpIn.Uid, idpIn.Description = idp.GetUid(), "the company's Okta"
			if up, ok := invoke(r, "idp update", "IdentityProvidersService", "UpdateIdentityProvider", &iam.UpdateIdentityProviderRequest{
				IdentityProvider: idpIn, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"*"}},
			}, &iam.IdentityProvider{}); ok {
				r.Equal("idp update: description", up.GetDescription(), "the company's Okta")
			}
			invoke(r, "idp delete", "IdentityProvidersService", "DeleteIdentityProvider", &iam.DeleteIdentityProviderRequest{Uid: idp.GetUid()}, &emptypb.Empty{})
		}
		aaIn := &iam.AccountAssociation{Name: "aws", Amazon: &iam.AccountAssociation_Amazon{Account: "123456789012"}}
		if aa, ok := invoke(r, "account create", "AccountAssociationsService", "CreateAccountAssociation", &iam.CreateAccountAssociationRequest{Parent: org, AccountAssociation: aaIn}, &iam.AccountAssociation{}); ok {
			if got, ok := invoke(r, "account get", "AccountAssociationsService", "GetAccountAssociation", &iam.GetAccountAssociationRequest{Uid: aa.GetUid()}, &iam.AccountAssociation{}); ok {
				r.Equal("account get: amazon", got.GetAmazon().GetAccount(), "123456789012")
			}
			aaIn.Uid, aaIn.Amazon = aa.GetUid(), &iam.AccountAssociation_Amazon{Account: "210987654321"}
			if up, ok := invoke(r, "account update", "AccountAssociationsService", "UpdateAccountAssociation", &iam.UpdateAccountAssociationRequest{
				AccountAssociation: aaIn, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"*"}},
			}, &iam.AccountAssociation{}); ok {
				r.Equal("account update: amazon", up.GetAmazon().GetAccount(), "210987654321")
			}
			invoke(r, "account delete", "AccountAssociationsService", "DeleteAccountAssociation", &iam.DeleteAccountAssociationRequest{Uid: aa.GetUid()}, &emptypb.Empty{})
		}
	})

	// iam-list-all: the SDK's list-all paging: ListGroups below params.org, params.page_size a
	// page, following next_page_token until it is empty; the uids in the order received.
	register("iam-list-all", func(r *Run) {
		org := r.Param("org")
		size, _ := r.Params["page_size"].(float64)
		token, pages, seen := "", 0, map[string]bool{}
		for {
			page, ok := invoke(r, "page", "GroupsService", "ListGroups", &iam.ListGroupsRequest{
				Uidp: &common.UIDPFilter{DescendantsOf: org}, PageSize: int32(size), PageToken: token,
			}, &iam.ListGroupsResponse{})
			if !ok {
				return
			}
			pages++
			for _, g := range page.GetGroups() {
				r.Check("no uid twice", !seen[g.GetUid()], "%s came twice", g.GetUid())
				seen[g.GetUid()] = true
			}
			if token = page.GetNextPageToken(); token == "" || pages > 100 {
				break
			}
		}
		r.emit(line{Step: "walked", Message: strings.Join(keys(seen), ",")})
	})

	// iam-unimplemented: every method serve has no source for answers UNIMPLEMENTED.
	register("iam-unimplemented", func(r *Run) {
		invoke(r, "CheckEligibility", "GroupsService", "CheckEligibility", &iam.CheckEligibilityRequest{}, &iam.CheckEligibilityResponse{})
		invoke(r, "ListTermsAcceptances", "TermsService", "ListTermsAcceptances", &iam.ListTermsAcceptancesRequest{Group: r.Param("org")}, &iam.ListTermsAcceptancesResponse{})
		invoke(r, "ListExternalGroupRoleMappings", "ExternalGroupRoleMappingsService", "ListExternalGroupRoleMappings", &iam.ListExternalGroupRoleMappingsRequest{}, &iam.ListExternalGroupRoleMappingsResponse{})
	})
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
