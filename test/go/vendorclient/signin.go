// Scenarios of the vendor's sign-in: the Terraform provider's flow (an identity token
// exchanged over gRPC with identity=UID and aud=the API URL, the API called with the minted
// token, refreshed) and the SDK's HTTP/1 fallback (reference/sts/sts.go: a form-encoded POST
// answered in proto JSON). The connection's bearer (PCTL_VENDOR_TOKEN) is the identity token.
package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	authv1 "chainguard.dev/sdk/proto/platform/auth/v1"
	common "chainguard.dev/sdk/proto/platform/common/v1"
	iamv1 "chainguard.dev/sdk/proto/platform/iam/v1"
	oidc "chainguard.dev/sdk/proto/platform/oidc/v1"
)

// as is a connection to the same server that sends another bearer token.
func (r *Run) as(token string) *grpc.ClientConn {
	conn, err := grpc.DialContext(r.Ctx, r.Conn.Target(), grpc.WithInsecure(), grpc.WithPerRPCCredentials(bearer(token)))
	if err != nil {
		r.Check("dial", false, "%v", err)
		panic(stop{})
	}
	return conn
}

// http1 is the SDK's HTTP/1 downgrade: the fields form-encoded, the token as bearer, the answer
// proto JSON; a failure's gRPC code read from the grpc-gateway status body, as the SDK does.
func (r *Run) http1(step, path, token string, form url.Values, out proto.Message) bool {
	req, _ := http.NewRequestWithContext(r.Ctx, http.MethodPost, "http://"+r.Conn.Target()+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	client := &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: false}}
	res, err := client.Do(req)
	if err != nil {
		r.Check(step, false, "%v", err)
		return false
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		var s struct {
			Code    int32  `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(b, &s)
		r.emit(line{Step: step, Code: codes.Code(s.Code).String(), Message: s.Message})
		return false
	}
	if err := protojson.Unmarshal(b, out); err != nil {
		r.Check(step, false, "the answer is not the published message in proto JSON: %v (%s)", err, b)
		return false
	}
	r.emit(line{Step: step, Code: codes.OK.String(), Response: b})
	return true
}

func init() {
	// sts-provider-flow: params.identity (uid), params.aud (the API URL), params.org.
	register("sts-provider-flow", func(r *Run) {
		uid, aud, org := r.Param("identity"), r.Param("aud"), r.Param("org")
		sts := oidc.NewSecurityTokenServiceClient(r.Conn)
		raw, ok := Call(r, "exchange", func(ctx context.Context) (*oidc.RawToken, error) {
			return sts.Exchange(ctx, &oidc.ExchangeRequest{Aud: []string{aud}, Identity: uid})
		})
		if !ok {
			return
		}
		r.Check("exchange: a refresh token and an expiry", raw.GetRefreshToken() != "" && raw.GetExpiry() != nil, "got %v", raw)
		api := r.as(raw.GetToken())
		defer api.Close()
		who, ok := Call(r, "validate", func(ctx context.Context) (*authv1.WhoAmI, error) {
			return authv1.NewAuthClient(api).Validate(ctx, &emptypb.Empty{})
		})
		if ok {
			r.Equal("validate: the identity", who.GetSubject(), uid)
			r.Equal("validate: the audience", who.GetAudience(), []string{aud})
		}
		Call(r, "list groups", func(ctx context.Context) (*iamv1.GroupList, error) {
			return iamv1.NewGroupsClient(api).List(ctx, &iamv1.GroupFilter{Uidp: &common.UIDPFilter{ChildrenOf: org}})
		})
		Call(r, "create group (viewer may not)", func(ctx context.Context) (*iamv1.Group, error) {
			return iamv1.NewGroupsClient(api).Create(ctx, &iamv1.CreateGroupRequest{Parent: org, Group: &iamv1.Group{Name: "nope"}})
		})

		refresher := r.as(raw.GetRefreshToken())
		defer refresher.Close()
		pair, ok := Call(r, "refresh", func(ctx context.Context) (*oidc.TokenPair, error) {
			return oidc.NewSecurityTokenServiceClient(refresher).ExchangeRefreshToken(ctx, &oidc.ExchangeRefreshTokenRequest{Aud: []string{aud}})
		})
		if ok {
			fresh := r.as(pair.GetToken().GetToken())
			defer fresh.Close()
			Call(r, "validate refreshed", func(ctx context.Context) (*authv1.WhoAmI, error) {
				return authv1.NewAuthClient(fresh).Validate(ctx, &emptypb.Empty{})
			})
		}
		Call(r, "refresh again with the rotated-out token", func(ctx context.Context) (*oidc.TokenPair, error) {
			return oidc.NewSecurityTokenServiceClient(refresher).ExchangeRefreshToken(ctx, &oidc.ExchangeRefreshTokenRequest{})
		})
	})

	// sts-http1: the SDK's form POST for Exchange and ExchangeRefreshToken; params.identity, params.aud.
	register("sts-http1", func(r *Run) {
		uid, aud := r.Param("identity"), r.Param("aud")
		identityToken := os.Getenv("PCTL_VENDOR_TOKEN")
		raw := &oidc.RawToken{}
		if !r.http1("exchange", "/sts/exchange", identityToken, url.Values{"aud": {aud}, "identity": {uid}}, raw) {
			return
		}
		api := r.as(raw.GetToken())
		defer api.Close()
		who, ok := Call(r, "validate", func(ctx context.Context) (*authv1.WhoAmI, error) {
			return authv1.NewAuthClient(api).Validate(ctx, &emptypb.Empty{})
		})
		if ok {
			r.Equal("validate: the identity", who.GetSubject(), uid)
		}
		pair := &oidc.TokenPair{}
		if r.http1("refresh", "/sts/exchange_refresh_token", raw.GetRefreshToken(), url.Values{"aud": {aud}}, pair) {
			r.Check("refresh: a new refresh token", pair.GetRefreshToken().GetToken() != raw.GetRefreshToken(), "the same refresh token came back")
		}
		r.http1("exchange for another identity", "/sts/exchange", identityToken, url.Values{"aud": {aud}, "identity": {uid + "0"}}, &oidc.RawToken{})
		r.http1("exchange for another audience", "/sts/exchange", identityToken, url.Values{"aud": {"https://elsewhere.test"}, "identity": {uid}}, &oidc.RawToken{})
		_, err := oidc.NewSecurityTokenServiceClient(r.Conn).Exchange(r.Ctx, &oidc.ExchangeRequest{Aud: []string{aud}, Identity: uid})
		r.Check("grpc exchange with the same identity token", err == nil, "%v", status.Convert(err).Message())
	})
}
