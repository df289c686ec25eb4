package graph

import (
	"context"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/graph/model"
	"docsapi/storage"
)

func (r *Resolver) memberModel(m storage.Member) *model.Member {
	return &model.Member{
		Object: "member", ID: m.User.ID, Role: roleModel(m.Role), User: r.userModel(m.User),
		Disabled: m.Disabled, JoinedAt: model.Time(m.JoinedAt), LastSeenAt: model.TimePtr(m.LastSeenAt),
		Sso: m.SSO, Spaces: m.Spaces, Teams: m.Teams,
	}
}

// member reads one member of s's organization as the API shows it.
func (r *Resolver) member(ctx context.Context, s orgScope, userID string) (*model.Member, error) {
	m, err := r.Store.Member(ctx, s.Org.ID, userID)
	if err != nil {
		return nil, notFoundAs(err, "member")
	}
	return r.memberModel(m), nil
}

// visitorClaimsTTL is how long a ping's visitor-claims token is valid.
const visitorClaimsTTL = time.Hour

// visitorClaims signs the JWT that ping returns: who the member is and the
// claims a docs site may use to adapt content to them.
func (r *Resolver) visitorClaims(ctx context.Context, s orgScope, u storage.User) (string, error) {
	now := r.Now()
	role := "guest"
	if s.Member.Role != nil {
		role = *s.Member.Role
	}
	return r.Signer.Sign(ctx, jwt.MapClaims{
		"iss": r.Config.PublicURL, "sub": u.ID, "aud": s.Org.ID,
		"iat": now.Unix(), "exp": now.Add(visitorClaimsTTL).Unix(),
		"claims": map[string]any{"email": u.Email, "displayName": u.DisplayName, "role": role, "sso": s.Member.SSO},
	})
}
