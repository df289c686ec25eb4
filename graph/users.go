package graph

import (
	"context"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

func (r *Resolver) userModel(u storage.User) *model.User {
	return &model.User{
		Object: "user", ID: u.ID, DisplayName: u.DisplayName, Email: u.Email, PhotoURL: u.PhotoURL,
		Urls: model.UserURLs{Location: r.Config.PublicURL + "/v1/users/" + u.ID},
	}
}

// maxDisplayName is 0.130.0's bound of a user's displayName.
const maxDisplayName = 64

// updateUser changes the caller's own profile. Another user the caller
// can see is a 403; one they cannot, a 404 (as reading it).
func (r *Resolver) updateUser(ctx context.Context, id string, in model.UpdateUserInput) (*model.User, error) {
	if _, err := r.Query().User(ctx, id); err != nil {
		return nil, err
	}
	c, _ := callerOf(ctx)
	switch {
	case isInstallationToken(c):
		return nil, apierr.Forbidden("an installation token has no profile to change")
	case id != c.UserID:
		return nil, apierr.Forbidden("only your own profile can be changed")
	case in.DisplayName == nil && in.PhotoURL == nil:
		return nil, apierr.Invalid("body", "give at least one of displayName and photoURL")
	}
	if in.DisplayName != nil {
		if err := checkLen("displayName", *in.DisplayName, 1, maxDisplayName); err != nil {
			return nil, err
		}
	}
	if in.PhotoURL != nil {
		if err := checkURL("photoURL", *in.PhotoURL, 2048); err != nil {
			return nil, err
		}
	}
	if err := r.Store.UpdateUser(ctx, id, in.DisplayName, in.PhotoURL); err != nil {
		return nil, notFoundAs(err, "user")
	}
	return r.Query().User(ctx, id)
}
