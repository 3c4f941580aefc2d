// Scenarios of the vendor's v1 IAM services (chainguard.platform.iam), which serve answers
// beside v2 (docs/v1.md).
package main

import (
	"context"

	common "chainguard.dev/sdk/proto/platform/common/v1"
	iamv1 "chainguard.dev/sdk/proto/platform/iam/v1"
)

func init() {
	// v1-groups: Groups/Create under params.org, List by id, Delete; List of the deleted one is empty.
	register("v1-groups", func(r *Run) {
		org := r.Param("org")
		groups := iamv1.NewGroupsClient(r.Conn)
		g, ok := Call(r, "create", func(ctx context.Context) (*iamv1.Group, error) {
			return groups.Create(ctx, &iamv1.CreateGroupRequest{Parent: org, Group: &iamv1.Group{Name: "go-v1", Description: "made by Go"}})
		})
		if !ok {
			return
		}
		list, ok := Call(r, "list", func(ctx context.Context) (*iamv1.GroupList, error) {
			return groups.List(ctx, &iamv1.GroupFilter{Uidp: &common.UIDPFilter{ChildrenOf: org}, Name: "go-v1"})
		})
		if ok && r.Equal("list: one item", len(list.GetItems()), 1) {
			r.Equal("list: its id", list.GetItems()[0].GetId(), g.GetId())
		}
		Call(r, "delete", func(ctx context.Context) (*emptyMessage, error) {
			return groups.Delete(ctx, &iamv1.DeleteGroupRequest{Id: g.GetId()})
		})
		after, ok := Call(r, "list after delete", func(ctx context.Context) (*iamv1.GroupList, error) {
			return groups.List(ctx, &iamv1.GroupFilter{Id: g.GetId()})
		})
		if ok {
			r.Equal("list after delete: none", len(after.GetItems()), 0)
		}
	})
}
