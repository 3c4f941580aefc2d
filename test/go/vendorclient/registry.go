// Scenarios of the Terraform provider's registry and events resources, call for call as its
// sources make them (terraform-provider-chainguard 5085c9f): chainguard_image_repo and
// chainguard_image_tag speak v1's Registry, the image_repo data source v2's ReposService,
// chainguard_subscription v1's events Subscriptions. The v2 and v2beta1 ReposService,
// TagsService and SubscriptionsService are replayed beside them.
package main

import (
	"context"

	regv2 "chainguard.dev/sdk/proto/chainguard/platform/registry/v2"
	regv2beta1 "chainguard.dev/sdk/proto/chainguard/platform/registry/v2beta1"
	evv2 "chainguard.dev/sdk/proto/chainguard/platform/events/v2"
	evv2beta1 "chainguard.dev/sdk/proto/chainguard/platform/events/v2beta1"
	common "chainguard.dev/sdk/proto/platform/common/v1"
	events "chainguard.dev/sdk/proto/platform/events/v1"
	registry "chainguard.dev/sdk/proto/platform/registry/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

const tagDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func init() {
	// tf-image-repo: resource_image_repo.go's Create, Read (ListRepos by id), Update (the whole
	// repo) and Delete; data_source_image_repo.go's GetRepo and ListRepos by parent and name.
	register("tf-image-repo", func(r *Run) {
		org := r.Param("org")
		reg := registry.NewRegistryClient(r.Conn)
		repo, ok := Call(r, "create", func(ctx context.Context) (*registry.Repo, error) {
			return reg.CreateRepo(ctx, &registry.CreateRepoRequest{ParentId: org, Repo: &registry.Repo{
				Name: "tf-nginx", Bundles: []string{"base"}, CatalogTier: registry.CatalogTier_BASE, Aliases: []string{"nginx-alias"},
				ActiveTags: []string{"latest"}, Description: "made by terraform",
			}})
		})
		if !ok {
			return
		}
		list, ok := Call(r, "read", func(ctx context.Context) (*registry.RepoList, error) {
			return reg.ListRepos(ctx, &registry.RepoFilter{Id: repo.GetId()})
		})
		if ok && r.Equal("read: one item", len(list.GetItems()), 1) {
			got := list.GetItems()[0]
			r.Equal("read: tier", got.GetCatalogTier(), registry.CatalogTier_BASE)
			r.Equal("read: bundles", got.GetBundles(), []string{"base"})
			r.Equal("read: active tags", got.GetActiveTags(), []string{"latest"})
		}
		updated, ok := Call(r, "update", func(ctx context.Context) (*registry.Repo, error) {
			return reg.UpdateRepo(ctx, &registry.Repo{
				Id: repo.GetId(), Name: "tf-nginx", Bundles: []string{"base", "fips"}, CatalogTier: registry.CatalogTier_FIPS, Description: "changed",
			})
		})
		if ok {
			r.Equal("update: tier", updated.GetCatalogTier(), registry.CatalogTier_FIPS)
			r.Equal("update: a PUT clears what it leaves out", len(updated.GetAliases()), 0)
		}
		repos := regv2.NewReposServiceClient(r.Conn)
		got, ok := Call(r, "data source get", func(ctx context.Context) (*regv2.Repo, error) {
			return repos.GetRepo(ctx, &regv2.GetRepoRequest{Uid: repo.GetId()})
		})
		if ok {
			r.Equal("data source get: tier", got.GetCatalogTier(), regv2.CatalogTier_CATALOG_TIER_FIPS)
			r.Equal("data source get: description", got.GetDescription(), "changed")
		}
		named, ok := Call(r, "data source list", func(ctx context.Context) (*regv2.ListReposResponse, error) {
			return repos.ListRepos(ctx, &regv2.ListReposRequest{Uidp: &common.UIDPFilter{ChildrenOf: org}, Name: proto.String("tf-nginx")})
		})
		if ok && r.Equal("data source list: one", len(named.GetRepos()), 1) {
			r.Equal("data source list: the repo", named.GetRepos()[0].GetUid(), repo.GetId())
		}
		Call(r, "delete", func(ctx context.Context) (*emptyMessage, error) {
			return reg.DeleteRepo(ctx, &registry.DeleteRepoRequest{Id: repo.GetId()})
		})
		after, ok := Call(r, "read after delete", func(ctx context.Context) (*registry.RepoList, error) {
			return reg.ListRepos(ctx, &registry.RepoFilter{Id: repo.GetId()})
		})
		if ok {
			r.Equal("read after delete: none", len(after.GetItems()), 0)
		}
	})

	// tf-image-tag: resource_image_tag.go's Create (no digest), Read (ListTags by id), Update, Delete, under params.repo.
	register("tf-image-tag", func(r *Run) {
		repo := r.Param("repo")
		reg := registry.NewRegistryClient(r.Conn)
		tag, ok := Call(r, "create", func(ctx context.Context) (*registry.Tag, error) {
			return reg.CreateTag(ctx, &registry.CreateTagRequest{RepoId: repo, Tag: &registry.Tag{Name: "latest", Bundles: []string{"b"}}})
		})
		if !ok {
			return
		}
		list, ok := Call(r, "read", func(ctx context.Context) (*registry.TagList, error) {
			return reg.ListTags(ctx, &registry.TagFilter{Id: tag.GetId()})
		})
		if ok {
			r.Equal("read: one item", len(list.GetItems()), 1)
		}
		updated, ok := Call(r, "update", func(ctx context.Context) (*registry.Tag, error) {
			return reg.UpdateTag(ctx, &registry.Tag{Id: tag.GetId(), Name: "latest", Bundles: []string{"b", "c"}, Deprecated: true})
		})
		if ok {
			r.Equal("update: deprecated", updated.GetDeprecated(), true)
			r.Equal("update: bundles", updated.GetBundles(), []string{"b", "c"})
		}
		Call(r, "delete", func(ctx context.Context) (*emptyMessage, error) {
			return reg.DeleteTag(ctx, &registry.DeleteTagRequest{Id: tag.GetId()})
		})
	})

	// registry-v2: ReposService and TagsService of v2 and v2beta1: create a repo with a tag, update by mask, list, delete.
	register("registry-v2", func(r *Run) {
		org := r.Param("org")
		type version struct {
			name string
			run  func(r *Run, org string)
		}
		for _, v := range []version{{"v2", registryV2}, {"v2beta1", registryV2beta1}} {
			v.run(r, org)
		}
	})

	// tf-subscription: resource_subscription.go's Create, Read (List by id), Delete over v1; Get over v2 and v2beta1.
	register("tf-subscription", func(r *Run) {
		org := r.Param("org")
		subs := events.NewSubscriptionsClient(r.Conn)
		sub, ok := Call(r, "create", func(ctx context.Context) (*events.Subscription, error) {
			return subs.Create(ctx, &events.CreateSubscriptionRequest{ParentId: org, Subscription: &events.Subscription{Sink: "https://hooks.example/tf"}})
		})
		if !ok {
			return
		}
		list, ok := Call(r, "read", func(ctx context.Context) (*events.SubscriptionList, error) {
			return subs.List(ctx, &events.SubscriptionFilter{Id: sub.GetId()})
		})
		if ok && r.Equal("read: one item", len(list.GetItems()), 1) {
			r.Equal("read: sink", list.GetItems()[0].GetSink(), "https://hooks.example/tf")
		}
		v2, ok := Call(r, "v2 get", func(ctx context.Context) (*evv2.Subscription, error) {
			return evv2.NewSubscriptionsServiceClient(r.Conn).GetSubscription(ctx, &evv2.GetSubscriptionRequest{Uid: sub.GetId()})
		})
		if ok {
			r.Equal("v2 get: sink", v2.GetSink(), "https://hooks.example/tf")
		}
		Call(r, "v2beta1 list", func(ctx context.Context) (*evv2beta1.ListSubscriptionsResponse, error) {
			return evv2beta1.NewSubscriptionsServiceClient(r.Conn).ListSubscriptions(ctx, &evv2beta1.ListSubscriptionsRequest{Uidp: &common.UIDPFilter{Ids: []string{sub.GetId()}}})
		})
		Call(r, "delete", func(ctx context.Context) (*emptyMessage, error) {
			return subs.Delete(ctx, &events.DeleteSubscriptionRequest{Id: sub.GetId()})
		})
	})
}

func registryV2(r *Run, org string) {
	repos := regv2.NewReposServiceClient(r.Conn)
	tags := regv2.NewTagsServiceClient(r.Conn)
	repo, ok := Call(r, "v2 create repo", func(ctx context.Context) (*regv2.Repo, error) {
		return repos.CreateRepo(ctx, &regv2.CreateRepoRequest{Parent: org, Repo: &regv2.Repo{Name: "go-v2", SyncConfig: &regv2.SyncConfig{Source: "chainguard/nginx"}}})
	})
	if !ok {
		return
	}
	if tag, ok := Call(r, "v2 create tag", func(ctx context.Context) (*regv2.Tag, error) {
		return tags.CreateTag(ctx, &regv2.CreateTagRequest{Parent: repo.GetUid(), Tag: &regv2.Tag{Name: "1.0", Digest: tagDigest}})
	}); ok {
		listed, ok := Call(r, "v2 list tags", func(ctx context.Context) (*regv2.ListTagsResponse, error) {
			return tags.ListTags(ctx, &regv2.ListTagsRequest{Uidp: &common.UIDPFilter{ChildrenOf: repo.GetUid()}})
		})
		if ok && r.Equal("v2 list tags: one", len(listed.GetTags()), 1) {
			r.Equal("v2 list tags: the tag", listed.GetTags()[0].GetUid(), tag.GetUid())
		}
	}
	updated, ok := Call(r, "v2 update repo", func(ctx context.Context) (*regv2.Repo, error) {
		return repos.UpdateRepo(ctx, &regv2.UpdateRepoRequest{Repo: &regv2.Repo{Uid: repo.GetUid(), Description: "masked"}, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"description"}}})
	})
	if ok {
		r.Equal("v2 update repo: description", updated.GetDescription(), "masked")
		r.Equal("v2 update repo: sync source kept", updated.GetSyncConfig().GetSource(), "chainguard/nginx")
	}
	Call(r, "v2 delete repo", func(ctx context.Context) (*emptyMessage, error) {
		return repos.DeleteRepo(ctx, &regv2.DeleteRepoRequest{Uid: repo.GetUid()})
	})
}

func registryV2beta1(r *Run, org string) {
	repos := regv2beta1.NewReposServiceClient(r.Conn)
	repo, ok := Call(r, "v2beta1 create repo", func(ctx context.Context) (*regv2beta1.Repo, error) {
		return repos.CreateRepo(ctx, &regv2beta1.CreateRepoRequest{Parent: org, Repo: &regv2beta1.Repo{Name: "go-v2beta1", CatalogTier: regv2beta1.CatalogTier_CATALOG_TIER_AI}})
	})
	if !ok {
		return
	}
	got, ok := Call(r, "v2beta1 get repo", func(ctx context.Context) (*regv2beta1.Repo, error) {
		return repos.GetRepo(ctx, &regv2beta1.GetRepoRequest{Uid: repo.GetUid()})
	})
	if ok {
		r.Equal("v2beta1 get repo: tier", got.GetCatalogTier(), regv2beta1.CatalogTier_CATALOG_TIER_AI)
	}
	Call(r, "v2beta1 delete repo", func(ctx context.Context) (*emptyMessage, error) {
		return repos.DeleteRepo(ctx, &regv2beta1.DeleteRepoRequest{Uid: repo.GetUid()})
	})
}
