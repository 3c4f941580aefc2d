// Scenarios of the published IAM messages' fields beyond names: an identity's claim_match in
// its pattern forms (a GitHub Actions workflow matched by repository), changed by the
// published update masks (claim_match, claim_match.subject_pattern).
package main

import (
	"context"

	authv1 "chainguard.dev/sdk/proto/platform/auth/v1"
	iam "chainguard.dev/sdk/proto/chainguard/platform/iam/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// relationshipOf is the identity with only its relationship, to compare it (static keys
// without their expiration_time, which the server sets when the request leaves it out).
func relationshipOf(i *iam.Identity) *iam.Identity {
	out := proto.Clone(&iam.Identity{Relationship: i.GetRelationship()}).(*iam.Identity)
	if k := out.GetStaticKeys(); k != nil {
		k.ExpirationTime = nil
	}
	return out
}

func init() {
	// iam-relationships: params.version, params.org. An identity of each other relationship
	// form (static keys, AWS, service principal) made and read back; the test deletes them.
	register("iam-relationships", func(r *Run) {
		org, v := r.Param("org"), r.Param("version")
		made := map[string]*iam.Identity{
			"static": {Name: "static-" + v, Relationship: &iam.Identity_StaticKeys_{StaticKeys: &iam.Identity_StaticKeys{
				Issuer: "https://offline.example", Subject: "robot", IssuerKeys: `{"keys":[]}`, Audiences: []string{"https://api.example"},
			}}},
			"aws": {Name: "aws-" + v, Relationship: &iam.Identity_AwsIdentity{AwsIdentity: &iam.Identity_AWSIdentity{
				AwsAccount: "123456789012", AwsArn: &iam.Identity_AWSIdentity_ArnPattern{ArnPattern: `arn:aws:sts::123456789012:assumed-role/ci/.*`},
			}}},
			"principal": {Name: "principal-" + v, Relationship: &iam.Identity_ServicePrincipal{ServicePrincipal: iam.ServicePrincipal_SERVICE_PRINCIPAL_INGESTER}},
		}
		for _, kind := range []string{"static", "aws", "principal"} {
			id, ok := invoke(r, kind+" create", "IdentitiesService", "CreateIdentity", &iam.CreateIdentityRequest{Parent: org, Identity: made[kind]}, &iam.Identity{})
			if !ok {
				continue
			}
			if got, ok := invoke(r, kind+" get", "IdentitiesService", "GetIdentity", &iam.GetIdentityRequest{Uid: id.GetUid()}, &iam.Identity{}); ok {
				r.Check(kind+" get: the relationship", proto.Equal(relationshipOf(got), relationshipOf(made[kind])), "got %v", got)
				r.Check(kind+" get: no claim_match", got.GetClaimMatch() == nil, "got %v", got.GetClaimMatch())
			}
		}
	})


	// iam-binding-filters: params.version, params.group, params.identity. ListRoleBindings by
	// group, and by identity (refused: serve has no such index).
	register("iam-binding-filters", func(r *Run) {
		invoke(r, "by group", "RoleBindingsService", "ListRoleBindings", &iam.ListRoleBindingsRequest{Group: r.Param("group")}, &iam.ListRoleBindingsResponse{})
		invoke(r, "by identity", "RoleBindingsService", "ListRoleBindings", &iam.ListRoleBindingsRequest{Identity: r.Param("identity")}, &iam.ListRoleBindingsResponse{})
	})


	// iam-lookup-group: params.version. LookupGroup with the caller's token; the test reads the answer.
	register("iam-lookup-group", func(r *Run) {
		invoke(r, "lookup", "GroupsService", "LookupGroup", &iam.LookupGroupRequest{}, &iam.LookupGroupResponse{})
	})


	// auth-unimplemented: Auth's methods serve has no source for, each as the SDK calls it.
	register("auth-unimplemented", func(r *Run) {
		auth := authv1.NewAuthClient(r.Conn)
		Call(r, "Register", func(ctx context.Context) (*authv1.Session, error) {
			return auth.Register(ctx, &authv1.RegistrationRequest{})
		})
		Call(r, "GetHeadlessSession", func(ctx context.Context) (*authv1.HeadlessSession, error) {
			return auth.GetHeadlessSession(ctx, &authv1.GetHeadlessSessionRequest{Code: "ABCD-EFGH"})
		})
		Call(r, "Delete", func(ctx context.Context) (*emptyMessage, error) {
			return auth.Delete(ctx, &authv1.DeletionRequest{Id: "x"})
		})
		Call(r, "Validate", func(ctx context.Context) (*authv1.WhoAmI, error) {
			return auth.Validate(ctx, &emptyMessage{})
		})
	})


	// iam-group-kind: params.version, params.org. A subgroup's kind is refused (inherited); the
	// organization's kind is set with verified (the provider's mask name,description,verified,kind),
	// the subgroup returns it, status READY; then both are cleared again.
	register("iam-group-kind", func(r *Run) {
		org := r.Param("org")
		invoke(r, "subgroup with kind", "GroupsService", "CreateGroup",
			&iam.CreateGroupRequest{Parent: org, Group: &iam.Group{Name: "kinded", Kind: iam.OrgKind_ORG_KIND_CUSTOMER}}, &iam.Group{})
		sub, ok := invoke(r, "subgroup create", "GroupsService", "CreateGroup", &iam.CreateGroupRequest{Parent: org, Group: &iam.Group{Name: "team-" + r.Param("version")}}, &iam.Group{})
		if !ok {
			return
		}
		r.Equal("subgroup create: status", sub.GetStatus(), iam.OrgStatus_ORG_STATUS_READY)
		orgNow, ok := invoke(r, "org get", "GroupsService", "GetGroup", &iam.GetGroupRequest{Uid: org}, &iam.Group{})
		if !ok {
			return
		}
		mask := &fieldmaskpb.FieldMask{Paths: []string{"name", "description", "verified", "kind"}}
		invoke(r, "org kind unverified", "GroupsService", "UpdateGroup", &iam.UpdateGroupRequest{
			Group: &iam.Group{Uid: org, Name: orgNow.GetName(), Description: orgNow.GetDescription(), Kind: iam.OrgKind_ORG_KIND_CUSTOMER}, UpdateMask: mask,
		}, &iam.Group{})
		if up, ok := invoke(r, "org kind", "GroupsService", "UpdateGroup", &iam.UpdateGroupRequest{
			Group: &iam.Group{Uid: org, Name: orgNow.GetName(), Description: orgNow.GetDescription(), Verified: true, Kind: iam.OrgKind_ORG_KIND_CUSTOMER}, UpdateMask: mask,
		}, &iam.Group{}); ok {
			r.Equal("org kind: kind", up.GetKind(), iam.OrgKind_ORG_KIND_CUSTOMER)
			r.Equal("org kind: verified", up.GetVerified(), true)
		}
		if got, ok := invoke(r, "subgroup get", "GroupsService", "GetGroup", &iam.GetGroupRequest{Uid: sub.GetUid()}, &iam.Group{}); ok {
			r.Equal("subgroup get: inherited kind", got.GetKind(), iam.OrgKind_ORG_KIND_CUSTOMER)
		}
		invoke(r, "subgroup kind", "GroupsService", "UpdateGroup", &iam.UpdateGroupRequest{
			Group: &iam.Group{Uid: sub.GetUid(), Name: sub.GetName(), Kind: iam.OrgKind_ORG_KIND_DEV}, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"kind"}},
		}, &iam.Group{})
		if up, ok := invoke(r, "org reset", "GroupsService", "UpdateGroup", &iam.UpdateGroupRequest{
			Group: &iam.Group{Uid: org, Name: orgNow.GetName(), Description: orgNow.GetDescription()}, UpdateMask: mask,
		}, &iam.Group{}); ok {
			r.Equal("org reset: kind", up.GetKind(), iam.OrgKind_ORG_KIND_UNSPECIFIED)
		}
		invoke(r, "subgroup delete", "GroupsService", "DeleteGroup", &iam.DeleteGroupRequest{Uid: sub.GetUid()}, &emptyMessage{})
	})

	// iam-claim-patterns: params.version, params.org. Creates a pattern identity with every
	// ClaimMatch field form, reads it back, changes it by mask claim_match.subject_pattern,
	// then by claim_match (to exact issuer and subject); the test deletes it.
	register("iam-claim-patterns", func(r *Run) {
		org := r.Param("org")
		const gha = "https://token.actions.githubusercontent.com"
		in := &iam.Identity_ClaimMatch{
			Iss:           &iam.Identity_ClaimMatch_IssuerPattern{IssuerPattern: `https://token\.actions\.githubusercontent\.com`},
			Sub:           &iam.Identity_ClaimMatch_SubjectPattern{SubjectPattern: `repo:acme/.*:ref:refs/heads/main`},
			Aud:           &iam.Identity_ClaimMatch_AudiencePattern{AudiencePattern: `https://.*`},
			Claims:        map[string]string{"repository_owner": "acme"},
			ClaimPatterns: map[string]string{"workflow_ref": `acme/.*/\.github/workflows/release\.yaml@.*`},
		}
		id, ok := invoke(r, "pattern create", "IdentitiesService", "CreateIdentity", &iam.CreateIdentityRequest{Parent: org, Identity: &iam.Identity{
			Name: "gha-" + r.Param("version"), Relationship: &iam.Identity_ClaimMatch_{ClaimMatch: in},
		}}, &iam.Identity{})
		if !ok {
			return
		}
		if got, ok := invoke(r, "pattern get", "IdentitiesService", "GetIdentity", &iam.GetIdentityRequest{Uid: id.GetUid()}, &iam.Identity{}); ok {
			m := got.GetClaimMatch()
			r.Equal("pattern get: issuer_pattern", m.GetIssuerPattern(), in.GetIssuerPattern())
			r.Equal("pattern get: subject_pattern", m.GetSubjectPattern(), in.GetSubjectPattern())
			r.Equal("pattern get: audience_pattern", m.GetAudiencePattern(), in.GetAudiencePattern())
			r.Equal("pattern get: claims", m.GetClaims(), in.GetClaims())
			r.Equal("pattern get: claim_patterns", m.GetClaimPatterns(), in.GetClaimPatterns())
		}
		if up, ok := invoke(r, "pattern update subject", "IdentitiesService", "UpdateIdentity", &iam.UpdateIdentityRequest{
			Identity: &iam.Identity{Uid: id.GetUid(), Relationship: &iam.Identity_ClaimMatch_{ClaimMatch: &iam.Identity_ClaimMatch{
				Sub: &iam.Identity_ClaimMatch_SubjectPattern{SubjectPattern: `repo:acme/.*:ref:refs/tags/v.*`},
			}}},
			UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"claim_match.subject_pattern"}},
		}, &iam.Identity{}); ok {
			r.Equal("pattern update subject: subject_pattern", up.GetClaimMatch().GetSubjectPattern(), `repo:acme/.*:ref:refs/tags/v.*`)
			r.Equal("pattern update subject: the rest kept", up.GetClaimMatch().GetClaimPatterns(), in.GetClaimPatterns())
		}
		// Both forms of one oneof cannot be sent by the Go types; a bad pattern is refused.
		invoke(r, "pattern update bad", "IdentitiesService", "UpdateIdentity", &iam.UpdateIdentityRequest{
			Identity: &iam.Identity{Uid: id.GetUid(), Relationship: &iam.Identity_ClaimMatch_{ClaimMatch: &iam.Identity_ClaimMatch{
				Sub: &iam.Identity_ClaimMatch_SubjectPattern{SubjectPattern: `repo:(?=x)`},
			}}},
			UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"claim_match.subject_pattern"}},
		}, &iam.Identity{})
		if up, ok := invoke(r, "pattern update whole", "IdentitiesService", "UpdateIdentity", &iam.UpdateIdentityRequest{
			Identity: &iam.Identity{Uid: id.GetUid(), Relationship: &iam.Identity_ClaimMatch_{ClaimMatch: &iam.Identity_ClaimMatch{
				Iss: &iam.Identity_ClaimMatch_Issuer{Issuer: gha}, Sub: &iam.Identity_ClaimMatch_Subject{Subject: "repo:acme/app:ref:refs/heads/main"},
			}}},
			UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"claim_match"}},
		}, &iam.Identity{}); ok {
			m := up.GetClaimMatch()
			r.Equal("pattern update whole: issuer", m.GetIssuer(), gha)
			r.Equal("pattern update whole: subject", m.GetSubject(), "repo:acme/app:ref:refs/heads/main")
			r.Equal("pattern update whole: patterns cleared", len(m.GetClaimPatterns())+len(m.GetClaims())+len(m.GetAudiencePattern()), 0)
		}
	})
}
