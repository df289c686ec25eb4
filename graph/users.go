package graph

import (
	"docsapi/graph/model"
	"docsapi/storage"
)

func (r *Resolver) userModel(u storage.User) *model.User {
	return &model.User{
		Object: "user", ID: u.ID, DisplayName: u.DisplayName, Email: u.Email, PhotoURL: u.PhotoURL,
		Urls: model.UserURLs{Location: r.Config.PublicURL + "/v1/users/" + u.ID},
	}
}
