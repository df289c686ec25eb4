package model

type User struct {
	Object      string   `json:"object"`
	ID          string   `json:"id"`
	DisplayName string   `json:"displayName"`
	Email       string   `json:"email,omitempty"` // empty only for a site's readers (graph.User)
	PhotoURL    *string  `json:"photoURL,omitempty"`
	Urls        UserURLs `json:"urls"`
}

type UserURLs struct {
	Location string `json:"location"`
}

type UpdateUserInput struct {
	DisplayName *string `json:"displayName,omitempty"`
	PhotoURL    *string `json:"photoURL,omitempty"`
}
