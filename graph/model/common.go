package model

// Next is the cursor of the following page.
type Next struct {
	Page string `json:"page"`
}

// List is the shape of every paginated REST answer.
type List[T any] struct {
	Next  *Next `json:"next,omitempty"`
	Count int   `json:"count"`
	Items []T   `json:"items"`
}

// DeleteResult tells whether a delete removed something (REST: 205 or 204).
type DeleteResult struct {
	Deleted bool `json:"deleted"`
}

type ApiInformation struct {
	Version string `json:"version"`
	Build   string `json:"build"`
}
