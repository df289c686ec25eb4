package model

type SearchSectionResult struct {
	ID    string     `json:"id"`
	Title string     `json:"title"`
	Path  string     `json:"path"`
	Body  string     `json:"body"`
	Urls  SearchUrls `json:"urls"`
}

type SearchPageResult struct {
	ID       string                 `json:"id"`
	Title    string                 `json:"title"`
	Path     string                 `json:"path"`
	Sections []*SearchSectionResult `json:"sections"`
	Urls     SearchUrls             `json:"urls"`
}

type SearchUrls struct {
	App string `json:"app"`
}

type SearchSpaceResult struct {
	ID    string              `json:"id"`
	Title string              `json:"title"`
	Pages []*SearchPageResult `json:"pages"`
}

type SearchPageList List[*SearchPageResult]

type SearchSpaceList List[*SearchSpaceResult]
